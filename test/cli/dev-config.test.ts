// What `npm start` runs: config/dev.yaml lets several members on one machine find each other
// (127.0.0.1:5701-5703 in tcp-ip, and the banner says so); `npm start` compiles only when
// dist/ is out of date (scripts/build-if-stale.mjs).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest } from '../support/http.js';
import { canListen, freePort } from '../support/ports.js';
import { cleanEnv, REPO_ROOT, spawnGrid, waitFor, type GridProcess } from '../support/process.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'grid-dev-config-'));
  dirs.push(d);
  return d;
}

/** Three consecutive free loopback ports. */
async function freeRun(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const base = await freePort();
    if (base + 2 < 65536 && (await canListen(base + 1)) && (await canListen(base + 2))) return base;
  }
  throw new Error('no three consecutive free ports');
}

async function restPortOf(p: GridProcess): Promise<number> {
  return Number((await p.waitForStderr(/^REST on port (\d+)/m, 20_000))[1]);
}

describe('config/dev.yaml', () => {
  it('two members started from it find each other, and the banner says where it looks', async () => {
    const dev = resolve(REPO_ROOT, 'config/dev.yaml');
    let config = dev;
    let base = 5701;
    if (!((await canListen(5701)) && (await canListen(5702)) && (await canListen(5703)))) {
      // Someone uses the dev ports: the same config shape on three free ports.
      base = await freeRun();
      config = join(tempDir(), 'dev.yaml');
      writeFileSync(config, readFileSync(dev, 'utf8').replaceAll('5701-5703', `${base}-${base + 2}`).replace('port: 5701', `port: ${base}`));
    }
    const env = cleanEnv();
    const first = spawnGrid(['start', config], { env });
    const a = await restPortOf(first);
    expect(a).toBe(base);
    expect(first.stderr()).toContain(`Cluster "dev": looking for members at 127.0.0.1:${base}-${base + 2} (tcp-ip).`);
    const second = spawnGrid(['start', config], { env });
    const b = await restPortOf(second);
    expect(b).toBe(base + 1);
    for (const port of [a, b]) {
      await waitFor(
        `member on ${port} to list both`,
        async () => {
          const info = JSON.parse((await sendRequest(port, 'GET', '/hazelcast/rest/cluster')).body.toString()) as { members: unknown[] };
          return info.members.length === 2;
        },
        15_000,
      );
    }
    second.child.kill('SIGTERM');
    first.child.kill('SIGTERM');
    expect((await second.exited()).code).toBe(0);
    expect((await first.exited()).code).toBe(0);
  }, 40_000);
});

describe('npm start builds only when dist/ is stale', () => {
  /** A checkout in miniature: one source, its output, and a `tsc` that only records that it ran. */
  function miniCheckout(): { root: string; run: () => { stderr: string; built: boolean } } {
    const root = tempDir();
    mkdirSync(join(root, 'scripts'));
    copyFileSync(resolve(REPO_ROOT, 'scripts/build-if-stale.mjs'), join(root, 'scripts/build-if-stale.mjs'));
    mkdirSync(join(root, 'src/core'), { recursive: true });
    mkdirSync(join(root, 'dist/core'), { recursive: true });
    mkdirSync(join(root, 'node_modules/typescript/bin'), { recursive: true });
    writeFileSync(join(root, 'node_modules/typescript/bin/tsc'), "require('fs').writeFileSync(require('path').join(__dirname, 'ran'), '');\n");
    writeFileSync(join(root, 'package.json'), '{}');
    for (const f of ['tsconfig.json', 'tsconfig.build.json', 'src/cli.ts', 'src/core/a.ts', 'dist/cli.js', 'dist/core/a.js']) writeFileSync(join(root, f), '');
    const old = new Date(Date.now() - 60_000);
    for (const f of ['tsconfig.json', 'tsconfig.build.json', 'src/cli.ts', 'src/core/a.ts']) utimesSync(join(root, f), old, old);
    const marker = join(root, 'node_modules/typescript/bin/ran');
    return {
      root,
      run: () => {
        rmSync(marker, { force: true });
        const r = spawnSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { encoding: 'utf8' });
        expect(r.status).toBe(0);
        return { stderr: r.stderr, built: existsSync(marker) };
      },
    };
  }

  it('up to date: no build; a changed source, a source without output or a changed tsconfig: a build', () => {
    const { root, run } = miniCheckout();
    expect(run()).toEqual({ stderr: '', built: false });
    writeFileSync(join(root, 'src/core/a.ts'), 'export {};');
    expect(run()).toEqual({ stderr: 'grid: building dist/ (src/core/a.ts changed)\n', built: true });
    writeFileSync(join(root, 'dist/core/a.js'), '');
    expect(run().built).toBe(false);
    writeFileSync(join(root, 'src/core/b.ts'), '');
    expect(run()).toMatchObject({ stderr: 'grid: building dist/ (src/core/b.ts changed)\n', built: true });
    rmSync(join(root, 'src/core/b.ts'));
    writeFileSync(join(root, 'tsconfig.build.json'), '{}');
    expect(run()).toMatchObject({ stderr: 'grid: building dist/ (tsconfig.build.json changed)\n', built: true });
  });

  it('is what npm start runs first', () => {
    const pkg = JSON.parse(readFileSync(resolve(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['prestart']).toBe('node scripts/build-if-stale.mjs');
  });
});
