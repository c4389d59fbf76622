import { describe, expect, it } from 'vitest';
import { RaftLog } from '../../../src/cp/raft-log.js';
import { cmd } from './raft-helpers.js';

describe('RaftLog', () => {
  it('addresses entries by Raft index, with the snapshot as index 0’s stand-in', () => {
    const log = new RaftLog(0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 2)]);
    expect([log.lastIndex, log.lastTerm, log.size]).toEqual([3, 2, 3]);
    expect([log.termAt(0), log.termAt(1), log.termAt(3), log.termAt(4)]).toEqual([0, 1, 2, undefined]);
    expect(log.slice(2, 10)).toEqual([cmd(2, 1), cmd(3, 2)]);
    expect(log.slice(1, 10, 2)).toEqual([cmd(1, 1), cmd(2, 1)]);
    expect(log.slice(4, 10)).toEqual([]);
  });

  it('appends only the next index, never an older term', () => {
    const log = new RaftLog(0, 0, [cmd(1, 2)]);
    expect(() => log.append(cmd(3, 2))).toThrow(RangeError);
    expect(() => log.append(cmd(2, 1))).toThrow(RangeError);
    log.append(cmd(2, 3));
    expect(log.lastIndex).toBe(2);
  });

  it('truncates a suffix', () => {
    const log = new RaftLog(0, 0, [cmd(1, 1), cmd(2, 1), cmd(3, 1)]);
    log.truncateFrom(2);
    expect([log.lastIndex, log.entryAt(2)]).toEqual([1, undefined]);
    log.truncateFrom(5);
    expect(log.lastIndex).toBe(1);
  });

  it('compacts through an index, keeping the term of its last entry', () => {
    const log = new RaftLog(0, 0, [cmd(1, 1), cmd(2, 2), cmd(3, 2)]);
    log.compactThrough(2);
    expect([log.snapshotIndex, log.snapshotTerm, log.lastIndex, log.size]).toEqual([2, 2, 3, 1]);
    expect([log.termAt(1), log.termAt(2), log.entryAt(2), log.entryAt(3)]).toEqual([undefined, 2, undefined, cmd(3, 2)]);
    expect(() => log.slice(2, 4)).toThrow(RangeError);
    expect(() => log.truncateFrom(2)).toThrow(RangeError);
    expect(() => log.compactThrough(9)).toThrow(RangeError);
    log.compactThrough(1); // behind the snapshot: nothing to do
    expect(log.snapshotIndex).toBe(2);
  });

  it('is replaced whole by a snapshot it does not match', () => {
    const log = new RaftLog(0, 0, [cmd(1, 1), cmd(2, 1)]);
    log.reset(7, 3);
    expect([log.snapshotIndex, log.lastIndex, log.lastTerm, log.size, log.termAt(7)]).toEqual([7, 7, 3, 0, 3]);
    log.append(cmd(8, 3));
    expect(log.lastIndex).toBe(8);
  });
});
