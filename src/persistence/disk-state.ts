// Whether the member log can take records: a pure state machine of its disk (times in,
// decisions out; member-log.ts does the I/O). A full disk is a state the log leaves by itself
// once a probe finds space again; any other failure, and every failed fsync, stops the log
// until the member restarts: after a failed fsync Linux may have dropped the dirty pages and
// marked them clean, so neither retrying the fsync nor writing on after it can be trusted
// (PostgreSQL's "fsyncgate", etcd's panic on a failed fsync).

/** `ok`: writing. `full`: out of space, probing for space. `failed`: stopped until restart. */
export type DiskStateKind = 'ok' | 'full' | 'failed';

export interface DiskState {
  readonly kind: DiskStateKind;
  /** The failure that led here (undefined when ok): `ENOSPC: no space left on device, write`. */
  readonly reason: string | undefined;
  /** Epoch ms of the last transition. */
  readonly sinceMs: number;
  /** While full: when to look for space next, and the delay that led there (it doubles per probe, up to PROBE_MAX_MS). */
  readonly nextProbeAtMs: number;
  readonly probeDelayMs: number;
  /** While full: free bytes a probe must find before the log writes again. */
  readonly neededBytes: number;
}

/** Where in the log's I/O a failure happened. */
export type DiskOp = 'write' | 'fsync' | 'open';

export interface DiskFault {
  readonly op: DiskOp;
  /** The errno code (`ENOSPC`, `EIO`, ...), when there is one. */
  readonly code: string | undefined;
  readonly message: string;
  /** Bytes the failed write carried (a probe waits for at least twice that). */
  readonly bytes: number;
}

/** The first probe after a full disk, and the longest delay between probes. */
export const PROBE_MIN_MS = 100;
export const PROBE_MAX_MS = 5_000;
/** A probe resumes only with at least this much free (and twice the failed write). */
export const MIN_FREE_BYTES = 256 * 1024;

const SPACE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT']);

export function initialDiskState(nowMs: number): DiskState {
  return { kind: 'ok', reason: undefined, sinceMs: nowMs, nextProbeAtMs: 0, probeDelayMs: 0, neededBytes: 0 };
}

/**
 * A failure of the log's I/O. Out of space on a write or on opening a segment: `full` (the
 * log cut the file back to its last whole record and writes again once space is back). A
 * failed fsync, whatever its code, or any other error: `failed`, for good.
 */
export function onFault(s: DiskState, f: DiskFault, nowMs: number): DiskState {
  if (s.kind === 'failed') return s;
  const full = f.op !== 'fsync' && f.code !== undefined && SPACE_CODES.has(f.code);
  if (!full) return { kind: 'failed', reason: f.message, sinceMs: nowMs, nextProbeAtMs: 0, probeDelayMs: 0, neededBytes: 0 };
  // A resume that failed again backs off further; a fresh failure starts at the shortest delay.
  const delay = s.kind === 'full' ? Math.min(PROBE_MAX_MS, s.probeDelayMs * 2) : PROBE_MIN_MS;
  return {
    kind: 'full',
    reason: f.message,
    sinceMs: s.kind === 'full' ? s.sinceMs : nowMs,
    nextProbeAtMs: nowMs + delay,
    probeDelayMs: delay,
    neededBytes: Math.max(MIN_FREE_BYTES, 2 * f.bytes),
  };
}

/**
 * A probe of a full disk found `freeBytes` free (undefined: the probe itself failed). Enough:
 * `ok`. Else the next probe, later (the delay doubles up to PROBE_MAX_MS).
 */
export function onProbe(s: DiskState, freeBytes: number | undefined, nowMs: number): DiskState {
  if (s.kind !== 'full') return s;
  if (freeBytes !== undefined && freeBytes >= s.neededBytes) return initialDiskState(nowMs);
  const delay = Math.min(PROBE_MAX_MS, s.probeDelayMs * 2);
  return { ...s, nextProbeAtMs: nowMs + delay, probeDelayMs: delay };
}

/** The state as /health, metrics and `grid status` name it. */
export function diskStateName(kind: DiskStateKind): 'OK' | 'DISK_FULL' | 'FAILED' {
  return kind === 'ok' ? 'OK' : kind === 'full' ? 'DISK_FULL' : 'FAILED';
}
