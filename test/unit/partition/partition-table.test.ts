import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { PartitionTable, checkPartitionWriteFrom } from '../../../src/partition/partition-table.js';
import { PARTITION_COUNT } from '../../../src/partition/partitioning.js';

/** The GridError a check throws, or undefined when it lets the write in. */
function refusal(fn: () => void): GridError | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof GridError) return e;
    throw e;
  }
}

describe('checkPartitionWriteFrom: the one check before applying a write another member sends', () => {
  const table = new PartitionTable();
  table.set(new Array(PARTITION_COUNT).fill(['A', 'B']), 7);

  it('lets the owner in, whatever the sender stamped', () => {
    for (const stamp of [undefined, 0, 7, 8]) expect(refusal(() => checkPartitionWriteFrom('backup', 3, 'A', stamp, table))).toBeUndefined();
  });

  it('lets a non-owner in only with a newer table than this member has (it moved there meanwhile)', () => {
    expect(refusal(() => checkPartitionWriteFrom('backup', 3, 'B', 8, table))).toBeUndefined();
    for (const stamp of [undefined, 6, 7]) {
      const e = refusal(() => checkPartitionWriteFrom('partition copy', 3, 'B', stamp, table));
      expect(e?.code).toBe('STALE_VIEW');
      expect(e?.message).toContain('partition copy for partition 3 refused: sender B is not its owner here (table 7');
    }
  });

  it('refuses a partition that does not exist, before looking at the sender', () => {
    for (const pid of [-1, PARTITION_COUNT, PARTITION_COUNT + 5]) {
      const e = refusal(() => checkPartitionWriteFrom('replica sync copy', pid, 'A', 8, table));
      expect(e?.code).toBe('BAD_REQUEST');
      expect(e?.message).toBe(`no partition ${pid}`);
    }
  });

  it('an empty table (no owner yet) refuses everyone without a newer stamp', () => {
    const empty = new PartitionTable();
    expect(refusal(() => checkPartitionWriteFrom('backup', 0, 'A', undefined, empty))?.code).toBe('STALE_VIEW');
    expect(refusal(() => checkPartitionWriteFrom('backup', 0, '', 0, empty))?.code).toBe('STALE_VIEW');
    expect(refusal(() => checkPartitionWriteFrom('backup', 0, 'A', 1, empty))).toBeUndefined();
  });
});
