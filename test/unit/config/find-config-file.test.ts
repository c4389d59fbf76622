import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findConfigFile } from '../../../src/config/index.js';

describe('findConfigFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'grid-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const touch = (name: string): void => writeFileSync(join(dir, name), 'hazelcast:\n');

  it('prefers the explicit path, then GRID_CONFIG', () => {
    touch('grid.yaml');
    expect(findConfigFile({ explicit: 'a.xml', env: { GRID_CONFIG: 'b.yaml' }, cwd: dir })).toBe(join(dir, 'a.xml'));
    expect(findConfigFile({ env: { GRID_CONFIG: '/etc/b.yaml' }, cwd: dir })).toBe('/etc/b.yaml');
  });

  it('searches grid.xml, grid.yaml, grid.yml, hazelcast.xml, hazelcast.yaml, hazelcast.yml in order', () => {
    const order = ['grid.xml', 'grid.yaml', 'grid.yml', 'hazelcast.xml', 'hazelcast.yaml', 'hazelcast.yml'];
    for (const name of [...order].reverse()) {
      touch(name);
      expect(findConfigFile({ env: {}, cwd: dir })).toBe(join(dir, name));
    }
  });

  it('returns undefined when nothing is found', () => {
    expect(findConfigFile({ env: { GRID_CONFIG: '' }, cwd: dir })).toBeUndefined();
  });
});
