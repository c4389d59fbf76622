import { describe, expect, it } from 'vitest';
import { configFromObject, defaultConfig, type TuningConfig } from '../../../src/config/index.js';
import { configErrorOf } from './helpers.js';

const tuning = (properties: Record<string, unknown>): TuningConfig => configFromObject({ properties }).config.tuning;

describe('grid.partition.replica-sync-interval-seconds (anti-entropy)', () => {
  it('defaults to 5 s, takes 0 (off) and either name, grid.* winning', () => {
    expect(defaultConfig().config.tuning.replicaSyncIntervalSeconds).toBe(5);
    expect(tuning({ 'grid.partition.replica-sync-interval-seconds': 0 }).replicaSyncIntervalSeconds).toBe(0);
    expect(tuning({ 'hazelcast.partition.replica-sync-interval-seconds': '2' }).replicaSyncIntervalSeconds).toBe(2);
    expect(
      tuning({ 'hazelcast.partition.replica-sync-interval-seconds': 9, 'grid.partition.replica-sync-interval-seconds': 1 }).replicaSyncIntervalSeconds,
    ).toBe(1);
    expect(configFromObject({ properties: { 'grid.partition.replica-sync-interval-seconds': 3 } }).warnings).toEqual([]);
  });

  it('refuses negatives and non-integers with the property path', () => {
    expect(configErrorOf(() => tuning({ 'grid.partition.replica-sync-interval-seconds': -1 })).problems).toEqual([
      'inline: hazelcast.properties.grid.partition.replica-sync-interval-seconds: must be an integer >= 0, got "-1"',
    ]);
    expect(configErrorOf(() => tuning({ 'grid.partition.replica-sync-interval-seconds': '1.5' })).problems).toEqual([
      'inline: hazelcast.properties.grid.partition.replica-sync-interval-seconds: must be an integer >= 0, got "1.5"',
    ]);
  });
});

describe('grid.debug.drop-backups (tests only)', () => {
  it('is off by default and takes a fraction from 0 to 1', () => {
    expect(defaultConfig().config.tuning.debugDropBackups).toBe(0);
    expect(tuning({ 'grid.debug.drop-backups': '0.25' }).debugDropBackups).toBe(0.25);
    expect(tuning({ 'grid.debug.drop-backups': 1 }).debugDropBackups).toBe(1);
    expect(configFromObject({ properties: { 'grid.debug.drop-backups': 0.1 } }).warnings).toEqual([]);
  });

  it('refuses anything else', () => {
    for (const bad of ['2', '-0.1', 'some', '1e-3']) {
      expect(configErrorOf(() => tuning({ 'grid.debug.drop-backups': bad })).problems).toEqual([
        `inline: hazelcast.properties.grid.debug.drop-backups: must be a fraction from 0 to 1, got "${bad}"`,
      ]);
    }
  });
});
