import { describe, expect, it } from 'vitest';
import { diskStateName, initialDiskState, MIN_FREE_BYTES, onFault, onProbe, PROBE_MAX_MS, PROBE_MIN_MS, type DiskFault, type DiskOp } from '../../../src/persistence/disk-state.js';

function fault(op: DiskOp, code: string | undefined, bytes = 1000): DiskFault {
  return { op, code, message: `${code ?? 'odd'}: something, ${op}`, bytes };
}

describe('disk state: faults', () => {
  it('out of space on a write or a segment open: full, probing first after PROBE_MIN_MS, for at least twice the failed write', () => {
    for (const op of ['write', 'open'] as const) {
      for (const code of ['ENOSPC', 'EDQUOT']) {
        const s = onFault(initialDiskState(0), fault(op, code, 400_000), 1_000);
        expect(s).toEqual({ kind: 'full', reason: `${code}: something, ${op}`, sinceMs: 1_000, nextProbeAtMs: 1_000 + PROBE_MIN_MS, probeDelayMs: PROBE_MIN_MS, neededBytes: 800_000 });
      }
    }
    expect(onFault(initialDiskState(0), fault('write', 'ENOSPC', 10), 0).neededBytes).toBe(MIN_FREE_BYTES);
  });

  it('a failed fsync is failed for good, whatever its code (ENOSPC included): it is never retried on the same file', () => {
    for (const code of ['EIO', 'ENOSPC', 'EDQUOT', undefined]) {
      const s = onFault(initialDiskState(0), fault('fsync', code), 5);
      expect(s.kind).toBe('failed');
      expect(s.sinceMs).toBe(5);
    }
  });

  it('any other error, or none, on a write or open: failed', () => {
    for (const op of ['write', 'open'] as const) {
      for (const code of ['EIO', 'EROFS', 'EBADF', 'EISDIR', undefined]) expect(onFault(initialDiskState(0), fault(op, code), 0).kind).toBe('failed');
    }
  });

  it('failed stays failed: no fault and no probe leaves it', () => {
    const failed = onFault(initialDiskState(0), fault('fsync', 'EIO'), 1);
    expect(onFault(failed, fault('write', 'ENOSPC'), 2)).toBe(failed);
    expect(onProbe(failed, Number.MAX_SAFE_INTEGER, 3)).toBe(failed);
  });

  it('full, then a fault that is not about space: failed', () => {
    const full = onFault(initialDiskState(0), fault('write', 'ENOSPC'), 1);
    expect(onFault(full, fault('write', 'EIO'), 2).kind).toBe('failed');
    expect(onFault(full, fault('fsync', 'EIO'), 2).kind).toBe('failed');
  });

  it('full again (a resume that failed at once) backs off further and keeps the time it became full', () => {
    let s = onFault(initialDiskState(0), fault('write', 'ENOSPC'), 10);
    s = onFault(s, fault('write', 'ENOSPC'), 500);
    expect(s).toMatchObject({ kind: 'full', sinceMs: 10, probeDelayMs: 2 * PROBE_MIN_MS, nextProbeAtMs: 500 + 2 * PROBE_MIN_MS });
  });
});

describe('disk state: probes', () => {
  it('not enough free: still full, the delay doubles up to PROBE_MAX_MS and stays there', () => {
    let s = onFault(initialDiskState(0), fault('write', 'ENOSPC', 1_000_000), 0);
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      s = onProbe(s, 1_999_999, 100 * i);
      expect(s.kind).toBe('full');
      expect(s.nextProbeAtMs).toBe(100 * i + s.probeDelayMs);
      delays.push(s.probeDelayMs);
    }
    expect(delays.slice(0, 6)).toEqual([200, 400, 800, 1600, 3200, PROBE_MAX_MS]);
    expect(delays.slice(6).every((d) => d === PROBE_MAX_MS)).toBe(true);
  });

  it('a probe that failed itself (statfs error) counts as no space', () => {
    const s = onFault(initialDiskState(0), fault('write', 'ENOSPC'), 0);
    expect(onProbe(s, undefined, 100)).toMatchObject({ kind: 'full', probeDelayMs: 2 * PROBE_MIN_MS });
  });

  it('enough free (exactly what is needed, or more): ok, with the time of the change', () => {
    const s = onFault(initialDiskState(0), fault('write', 'ENOSPC', 1_000_000), 0);
    expect(onProbe(s, 2_000_000, 700)).toEqual(initialDiskState(700));
    expect(onProbe(s, 9e12, 700).kind).toBe('ok');
  });

  it('a probe of a disk that is ok changes nothing', () => {
    const ok = initialDiskState(3);
    expect(onProbe(ok, 0, 9)).toBe(ok);
  });

  it('names', () => {
    expect([diskStateName('ok'), diskStateName('full'), diskStateName('failed')]).toEqual(['OK', 'DISK_FULL', 'FAILED']);
  });
});
