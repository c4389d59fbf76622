// The shape checks a member applies to other members' MemberReport answers: an answer of an
// unexpected shape (a hostile or newer peer) makes that member unreachable in the listing,
// never a crash or a malformed REST answer.

import { describe, expect, it } from 'vitest';
import { checkFigures, checkHistory, checkMigrations, checkRates } from '../../../src/member/member-monitor.js';

const FIGURES = {
  state: 'ACTIVE', cpMember: false, cpMemberUuid: null, startTime: 1, uptimeMs: 2, heapUsedBytes: 3, heapTotalBytes: 4, rssBytes: 5, memoryLimitBytes: 6,
  partitionsOwned: 90, backupsHeld: 91, partitionTableVersion: 7, clientConnections: 0, restConnections: 1, memberConnections: 2, loadAverage: [0, 0, 0],
};

describe('checks of peers answers', () => {
  it('figures: takes the expected shape (and extra fields), refuses a missing or wrong field', () => {
    expect(checkFigures(FIGURES)).toEqual(FIGURES);
    expect(checkFigures({ ...FIGURES, newer: 1 })).toBeDefined();
    expect(checkFigures({ ...FIGURES, rssBytes: 'x' })).toBeUndefined();
    expect(checkFigures({ ...FIGURES, partitionsOwned: null })).toBeUndefined();
    expect(checkFigures({ ...FIGURES, loadAverage: ['1'] })).toBeUndefined();
    expect(checkFigures({ ...FIGURES, cpMemberUuid: 3 })).toBeUndefined();
    expect(checkFigures(null)).toBeUndefined();
    expect(checkFigures([])).toBeUndefined();
  });

  it('history: every column as long as its times', () => {
    const h = { intervalMs: 1000, times: [1, 2], series: { a: [1, null] }, wan: [{ wanReplicationName: 'w', publisherId: 'p', queueDepth: [0, 1], lagMs: [null, 2] }] };
    expect(checkHistory(h)).toEqual(h);
    expect(checkHistory({ ...h, series: { a: [1] } })).toBeUndefined();
    expect(checkHistory({ ...h, series: { a: [1, 'x'] } })).toBeUndefined();
    expect(checkHistory({ ...h, wan: [{ ...h.wan[0], lagMs: [1] }] })).toBeUndefined();
    expect(checkHistory({ ...h, times: 'x' })).toBeUndefined();
  });

  it('rates: non-negative finite numbers per name', () => {
    const r = { intervalMs: 1000, maps: { m: [1, 2, 3] }, queues: { q: [0, 1] } };
    expect(checkRates(r)).toEqual(r);
    expect(checkRates({ ...r, maps: { m: [-1, 0, 0] } })).toBeUndefined();
    expect(checkRates({ ...r, queues: [] })).toBeUndefined();
  });

  it("migrations: only a master's figures are taken as the master's", () => {
    const m = { master: true, queued: 0, inFlight: 1, running: [5], completed: 9, blockedPartitions: 0, partitionsWithoutOwner: 0, partitionsMissingReplicas: 0 };
    expect(checkMigrations(m)).toEqual(m);
    expect(checkMigrations({ ...m, master: false })).toBeUndefined();
    expect(checkMigrations({ ...m, queued: -1 })).toBeUndefined();
    expect(checkMigrations({ ...m, running: ['x'] })).toBeUndefined();
  });
});
