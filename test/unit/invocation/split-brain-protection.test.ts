import { describe, expect, it } from 'vitest';
import { configFromObject, type SplitBrainProtectionConfig } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { protectionRefusal, SplitBrainGuard, StructureProtection } from '../../../src/invocation/split-brain-protection.js';
import { MapService } from '../../../src/map/map-service.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { QueueService, type PollClient } from '../../../src/queue/queue-service.js';
import { captureLogs, RecordingInvoker } from '../core/fakes.js';

const p = (protectOn: SplitBrainProtectionConfig['protectOn'], minimumClusterSize = 3, enabled = true): SplitBrainProtectionConfig => ({
  name: 'sbp',
  enabled,
  minimumClusterSize,
  protectOn,
});

describe('protectionRefusal (the rule)', () => {
  it('refuses only the guarded access, only below the minimum', () => {
    for (const [on, read, write] of [
      ['READ_WRITE', true, true],
      ['READ', true, false],
      ['WRITE', false, true],
    ] as const) {
      for (let seen = 0; seen <= 4; seen++) {
        const below = seen < 3;
        expect(protectionRefusal(p(on), 'READ', seen, "map 'm'", 'this member') !== undefined).toBe(below && read);
        expect(protectionRefusal(p(on), 'WRITE', seen, "map 'm'", 'this member') !== undefined).toBe(below && write);
      }
    }
    expect(protectionRefusal(p('READ_WRITE', 3, false), 'WRITE', 1, "map 'm'", 'this member')).toBeUndefined();
  });

  it('says which protection, for what, who sees how many of how many', () => {
    const e = protectionRefusal(p('READ_WRITE'), 'WRITE', 1, "map 'm'", 'this member');
    expect(e).toBeInstanceOf(GridError);
    expect(e?.code).toBe('SPLIT_BRAIN_PROTECTION');
    expect(e?.retryable).toBe(false);
    expect(e?.message).toBe("split-brain protection 'sbp' for map 'm': this member sees 1 of the 3 members it needs");
  });
});

const RAW = {
  'split-brain-protection': {
    three: { enabled: true, 'minimum-cluster-size': 3 },
    writes: { enabled: true, 'minimum-cluster-size': 3, 'protect-on': 'WRITE' },
    off: { enabled: false, 'minimum-cluster-size': 3 },
  },
  map: { guarded: { 'split-brain-protection-ref': 'three' }, 'w-*': { 'split-brain-protection-ref': 'writes' }, old: { 'split-brain-protection-ref': 'off' } },
  queue: { guarded: { 'split-brain-protection-ref': 'three' }, w: { 'split-brain-protection-ref': 'writes' } },
};

const client: PollClient = { alive: () => true, onGone: () => undefined };

function services(size: { n: number }): { maps: MapService; queues: QueueService } {
  const deps = {
    config: configFromObject(RAW).config,
    invoker: new RecordingInvoker(),
    clock: new ManualClock(),
    logger: captureLogs().control.logger,
    clusterSize: () => size.n,
  };
  return { maps: new MapService(deps), queues: new QueueService(deps) };
}

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof GridError && e.code === 'SPLIT_BRAIN_PROTECTION') return e.message;
    throw e;
  }
  return 'allowed';
};

describe('maps and queues under split-brain protection', () => {
  it('with enough members everything runs', async () => {
    const size = { n: 3 };
    const { maps, queues } = services(size);
    await maps.put('guarded', 'k', 'v', undefined);
    expect(await maps.get('guarded', 'k')).toMatchObject({ value: 'v', contentType: undefined });
    expect(await maps.size('guarded')).toBe(1);
    expect(await queues.offer('guarded', { value: 'a', contentType: undefined })).toBe(true);
    expect(await queues.size('guarded')).toBe(1);
    expect(await queues.poll('guarded', 0, client)).toEqual({ value: 'a', contentType: undefined });
  });

  it('too few: the receiving member refuses before invoking anything', async () => {
    const size = { n: 3 };
    const { maps, queues } = services(size);
    await maps.put('guarded', 'k', 'v', undefined);
    await maps.put('w-1', 'k', 'v', undefined);
    size.n = 2;
    const need = 'this member sees 2 of the 3 members it needs';
    expect(refusal(() => maps.get('guarded', 'k'))).toBe(`split-brain protection 'three' for map 'guarded': ${need}`);
    expect(refusal(() => maps.put('guarded', 'k', 'v2', undefined))).toBe(`split-brain protection 'three' for map 'guarded': ${need}`);
    expect(refusal(() => maps.remove('guarded', 'k'))).toMatch(/^split-brain protection 'three'/);
    await expect(maps.clear('guarded')).rejects.toThrow(/split-brain protection 'three'/);
    await expect(maps.size('guarded')).rejects.toThrow(/split-brain protection 'three'/);
    // WRITE-only: reads go on, writes are refused; a wildcard entry protects every map it matches.
    expect(await maps.get('w-1', 'k')).toMatchObject({ value: 'v', contentType: undefined });
    expect(refusal(() => maps.put('w-1', 'k', 'v2', undefined))).toBe(`split-brain protection 'writes' for map 'w-1': ${need}`);
    // Unprotected and disabled: untouched.
    await maps.put('plain', 'k', 'v', undefined);
    await maps.put('old', 'k', 'v', undefined);
    // Queues: offer and poll are writes, size a read.
    expect(refusal(() => queues.offer('guarded', { value: 'b', contentType: undefined }))).toBe(`split-brain protection 'three' for queue 'guarded': ${need}`);
    expect(refusal(() => queues.poll('guarded', 0, client))).toBe(`split-brain protection 'three' for queue 'guarded': ${need}`);
    expect(refusal(() => queues.size('guarded'))).toMatch(/^split-brain protection 'three' for queue 'guarded'/);
    expect(refusal(() => queues.poll('w', 0, client))).toMatch(/^split-brain protection 'writes' for queue 'w'/);
    expect(await queues.size('w')).toBe(0);
    expect(await queues.offer('plain', { value: 'b', contentType: undefined })).toBe(true);
    size.n = 3;
    expect(await maps.get('guarded', 'k')).toMatchObject({ value: 'v', contentType: undefined });
  });

  it('the owner checks again when the operation arrives from another member; backups are never refused', () => {
    const size = { n: 3 };
    const { maps, queues } = services(size);
    size.n = 1;
    const pid = partitionIdOf('k');
    const owner = 'the partition owner sees 1 of the 3 members it needs';
    const caller = { alive: () => true, onGone: () => undefined };
    expect(refusal(() => maps.handler.operation(pid, 'get', ['guarded', 'k'], caller).run())).toBe(`split-brain protection 'three' for map 'guarded': ${owner}`);
    expect(refusal(() => maps.handler.operation(pid, 'remove', ['guarded', 'k'], caller).run())).toMatch(/^split-brain protection 'three'/);
    expect(refusal(() => maps.handler.operation(pid, 'size', ['guarded'], caller).run())).toMatch(/^split-brain protection 'three'/);
    expect(refusal(() => maps.handler.operation(pid, 'get', ['w-1', 'k'], caller).run())).toBe('allowed');
    const qpid = partitionIdOf('guarded');
    expect(refusal(() => queues.handler.operation(qpid, 'size', ['guarded'], caller).run())).toBe(
      `split-brain protection 'three' for queue 'guarded': ${owner}`,
    );
    // A backup is the tail of a write the owner allowed.
    maps.handler.applyBackup(pid, 'remove', ['guarded', 'k']);
  });

  it('no protection referenced: no guard at all', () => {
    expect(SplitBrainGuard.of(configFromObject({}).config, [], () => 1)).toBeUndefined();
    const c = configFromObject({ 'split-brain-protection': { off: { enabled: false } }, map: { m: { 'split-brain-protection-ref': 'off' } } }).config;
    expect(SplitBrainGuard.of(c, c.maps, () => 1)).toBeUndefined();
    expect(SplitBrainGuard.of(configFromObject(RAW).config, configFromObject(RAW).config.maps, () => 1)).toBeDefined();
  });
});

describe('StructureProtection (the checks both data services run)', () => {
  const config = configFromObject(RAW).config;
  const configOf = (name: string): { splitBrainProtectionRef: string | undefined; dataPersistence: { enabled: boolean } } => ({
    splitBrainProtectionRef: name === 'guarded' ? 'three' : name === 'w' ? 'writes' : undefined,
    dataPersistence: { enabled: name === 'saved' || name === 'guarded' },
  });

  it('names the structure kind and who checks, for every access the protection guards', () => {
    const size = { n: 3 };
    const sp = new StructureProtection({ kind: 'queue', config, entries: config.maps, clusterSize: () => size.n, configOf, persistence: () => undefined });
    sp.guardHere('guarded', 'READ');
    sp.guardOwner('guarded', 'WRITE');
    size.n = 2;
    expect(refusal(() => sp.guardHere('guarded', 'READ'))).toBe("split-brain protection 'three' for queue 'guarded': this member sees 2 of the 3 members it needs");
    expect(refusal(() => sp.guardOwner('guarded', 'WRITE'))).toBe("split-brain protection 'three' for queue 'guarded': the partition owner sees 2 of the 3 members it needs");
    expect(refusal(() => sp.guardOwner('w', 'READ'))).toBe('allowed');
    expect(refusal(() => sp.guardOwner('w', 'WRITE'))).toMatch(/^split-brain protection 'writes' for queue 'w'/);
    expect(refusal(() => sp.guardHere('plain', 'WRITE'))).toBe('allowed');
  });

  it('refuses writes of persisted structures only, while the log refuses, reading the persistence at each check', () => {
    // Plugged in after the service is built (as member/ does), then its log fills up.
    const member: { persistence?: { refusal(): GridError | undefined }; full?: GridError } = {};
    const sp = new StructureProtection({ kind: 'map', config, entries: config.maps, clusterSize: () => 3, configOf, persistence: () => member.persistence });
    sp.guardOwner('saved', 'WRITE');
    member.persistence = { refusal: () => member.full };
    sp.guardOwner('saved', 'WRITE');
    const full = new GridError('PERSISTENCE_FAILED', 'disk full');
    member.full = full;
    expect(() => sp.guardOwner('saved', 'WRITE')).toThrow(full);
    expect(() => sp.checkPersistable('saved')).toThrow(full);
    sp.guardOwner('saved', 'READ');
    sp.guardOwner('plain', 'WRITE');
    sp.checkPersistable('plain');
    // The protection is checked before the log: a minority member says why it refuses first.
    const small = new StructureProtection({ kind: 'map', config, entries: config.maps, clusterSize: () => 1, configOf, persistence: () => member.persistence });
    expect(refusal(() => small.guardOwner('guarded', 'WRITE'))).toMatch(/^split-brain protection 'three' for map 'guarded'/);
  });
});
