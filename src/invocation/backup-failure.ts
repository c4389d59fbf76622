// What a sync backup that was not acknowledged means for the write it belongs to. A pure rule:
// the invoker (invoker.ts) does the checking and the waiting around it; the unit tests drive it.

import type { GridErrorCode } from '../core/errors.js';

/** A backup refused for these reasons means this member's view is stale: the write is not acknowledged. */
const FENCING_CODES: ReadonlySet<GridErrorCode> = new Set<GridErrorCode>(['NOT_MEMBER', 'STALE_VIEW']);

/**
 * - `fenced`: the backup refused this member as owner (it was removed, or the partition moved on
 *   without it): the write is not acknowledged, and this member checks where it stands.
 * - `check`: no answer (a timeout, a lost connection) while this member may hold a stale view
 *   (it was paused, or checks its membership): the timer may have run out during this member's
 *   own pause, in which the cluster may have removed it and promoted another copy of the
 *   partition. The write answers once the member knows it still belongs; removed, its write is
 *   gone with it and is not acknowledged.
 * - `not-persisted`: the backup answered that it could not persist the write (disk full or
 *   failed): a failed write, not a late backup; the owner puts its change back.
 * - `answer`: Hazelcast's rule: a backup that does not answer does not fail the write.
 *
 * `fenced`: this member's `fenced()`, asked when the failure arrived (it notices a pause the
 * heartbeat timer has not seen yet).
 */
export function backupFailureVerdict(code: GridErrorCode | undefined, fenced: boolean): 'fenced' | 'check' | 'not-persisted' | 'answer' {
  if (code !== undefined && FENCING_CODES.has(code)) return 'fenced';
  if (code === 'PERSISTENCE_FAILED') return 'not-persisted';
  return fenced ? 'check' : 'answer';
}
