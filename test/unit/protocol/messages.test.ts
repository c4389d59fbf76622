import { describe, expect, it } from 'vitest';
import { Msg, isKnownMessage, messageName } from '../../../src/protocol/messages.js';

/**
 * The wire numbers of the member protocol, written out by hand: members of different builds
 * talk to each other, so a renumbered (or reused) message type must fail this test. A new
 * message is added here with a new number; an existing line never changes.
 */
const PINNED: Readonly<Record<string, number>> = {
  Auth: 1,
  Discover: 2,
  Join: 3,
  Members: 4,
  Heartbeat: 5,
  PartitionTable: 6,
  Operation: 7,
  Backup: 8,
  Migrate: 9,
  PartitionData: 10,
  StatePrepare: 11,
  StateCommit: 12,
  StateRollback: 13,
  ChangeState: 14,
  LeaveRequest: 15,
  ClusterShutdown: 16,
  FetchState: 17,
  PollCancel: 18,
  Leave: 19,
  FetchTable: 20,
  MigrateEnd: 21,
  ReplicaVersions: 30,
  ReplicaSyncRequest: 31,
  ReplicaSyncData: 32,
  MergeTo: 40,
  Ping: 41,
  WanAuth: 50,
  WanBatch: 51,
  WanMerkle: 52,
  WanSyncStart: 53,
  WanSyncStatus: 54,
  WanAddConfig: 55,
  WanConfigs: 56,
  WanBackupAck: 57,
  WanPing: 58,
  PersistenceCommand: 60,
  RecoveryState: 61,
  RecoveryDrop: 62,
  CpRaft: 70,
  CpInvoke: 71,
  CpView: 72,
  CpFetchView: 73,
  CpDiscover: 74,
  CpBootstrap: 75,
  CpReset: 76,
  EventInterest: 80,
  MapEvents: 81,
  QueueEventInterest: 82,
  QueueEvents: 83,
  MemberReport: 90,
  OperationGroup: 91,
};

describe('member protocol message table', () => {
  it('has exactly the pinned names and numbers', () => {
    expect({ ...Msg }).toEqual(PINNED);
  });

  it('never gives two messages the same number', () => {
    const ids = Object.values(Msg);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses numbers that fit the u16 type field, none of them 0', () => {
    for (const [name, id] of Object.entries(Msg)) {
      expect(Number.isInteger(id), name).toBe(true);
      expect(id, name).toBeGreaterThan(0);
      expect(id, name).toBeLessThanOrEqual(0xffff);
    }
  });

  it('names every known message for logs', () => {
    for (const [name, id] of Object.entries(PINNED)) {
      expect(messageName(id)).toBe(name);
      expect(isKnownMessage(id)).toBe(true);
    }
  });

  it('names an unknown type #<n> and does not know it', () => {
    for (const id of [0, 22, 99, 1000, 0xffff]) {
      expect(messageName(id)).toBe(`#${id}`);
      expect(isKnownMessage(id)).toBe(false);
    }
    // Not integers or out of range: still a name, never a throw.
    expect(messageName(-1)).toBe('#-1');
    expect(messageName(1.5)).toBe('#1.5');
    expect(isKnownMessage(1.5)).toBe(false);
  });
});
