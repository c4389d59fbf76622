// The rule for a sync backup that was not acknowledged (src/invocation/backup-failure.ts): every
// error code, with this member fenced or not.

import { describe, expect, it } from 'vitest';
import type { GridErrorCode } from '../../../src/core/errors.js';
import { backupFailureVerdict } from '../../../src/invocation/backup-failure.js';

const NO_ANSWER: (GridErrorCode | undefined)[] = ['TIMEOUT', 'MEMBER_UNREACHABLE', 'INTERNAL', 'CONFLICT', 'MEMBER_SHUTTING_DOWN', undefined];

describe('backupFailureVerdict', () => {
  it('a backup that refuses this member as owner fails the write, paused or not', () => {
    for (const code of ['NOT_MEMBER', 'STALE_VIEW'] as const) {
      expect(backupFailureVerdict(code, false)).toBe('fenced');
      expect(backupFailureVerdict(code, true)).toBe('fenced');
    }
  });

  it("a backup that does not answer does not fail the write of a member in good standing (Hazelcast's rule)", () => {
    for (const code of NO_ANSWER) expect(backupFailureVerdict(code, false)).toBe('answer');
  });

  it('a backup that did not answer while this member was paused (or checks its membership) waits for the membership check', () => {
    // The backup's timer ran out during this member's own pause: the cluster may have removed
    // it and promoted another copy of the partition, without this write.
    for (const code of NO_ANSWER) expect(backupFailureVerdict(code, true)).toBe('check');
  });

  it('a backup that answers it could not persist the write fails it, paused or not: not a late backup', () => {
    expect(backupFailureVerdict('PERSISTENCE_FAILED', false)).toBe('not-persisted');
    expect(backupFailureVerdict('PERSISTENCE_FAILED', true)).toBe('not-persisted');
  });
});
