// What an unauthenticated or unentitled TCP peer can do to a member: nothing. Malformed Auth
// requests and answers close that one connection; forged cluster messages (a partition or
// replica copy, a Leave for another member, a state commit, a merge order, a Join naming an
// unreachable or a lying listener) are refused; the cluster keeps every entry, its member
// list, its state and its safety. Well-formed messages are built with payloads.ts's encoders
// (what a member would send); wrong shapes are written out by hand, on purpose. Nothing a
// test does may change the cluster, so the file's tests share one 3-member cluster, each
// checking it is unharmed after.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Latin1, type WireValue } from '../../src/protocol/codec.js';
import { Msg, messageName } from '../../src/protocol/messages.js';
import * as P from '../../src/protocol/payloads.js';
import { PARTITION_HASH_VERSION, partitionIdOf } from '../../src/partition/partitioning.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { MemberPeer, fakeMemberListener } from '../support/member-peer.js';

const NOT_STRINGS: readonly [string, WireValue][] = [
  ['number', 42],
  ['float', 1.5],
  ['boolean', true],
  ['array', ['x']],
  ['object', { a: 1 }],
  ['bytes', new Uint8Array([1, 2, 3])],
  ['latin1', new Latin1('x')],
];

/** A well-formed Join: the joiner as a member tuple. */
function joinAs(uuid: string, address: string, port: number): WireValue {
  return P.encodeJoin({ member: { uuid, address, host: '127.0.0.1', port, liteMember: false, version: '5.3.0' } });
}

async function expectHealthy(c: Cluster, size: number, keys: number): Promise<void> {
  for (const m of c.live()) {
    const info = await c.clusterInfo(m.index);
    expect(info.members).toHaveLength(size);
    const h = await c.health(m.index);
    expect(h.clusterState).toBe('ACTIVE');
    expect(h.nodeState).toBe('ACTIVE');
    for (let i = 0; i < keys; i++) expect((await c.http(m.index, 'GET', `/hazelcast/rest/maps/m/k${i}`)).body).toBe(`v${i}`);
    expect((await c.http(m.index, 'POST', `/hazelcast/rest/maps/m/probe`, 'p')).status).toBe(200);
  }
}

describe('hostile member-protocol peers', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ size: 3, scope: 'file' });
  });
  afterAll(async () => {
    await c?.destroy();
  });

  it('a malformed Auth (username or password of any non-string type, bad uuid or address) closes that connection and nothing else', async () => {
    for (let i = 0; i < 20; i++) expect((await c.http(0, 'POST', `/hazelcast/rest/maps/m/k${i}`, `v${i}`)).status).toBe(200);
    const port = c.member(0).port;
    const payloads: WireValue[] = [];
    for (const [, bad] of NOT_STRINGS) {
      payloads.push(['dev', 'u-1', '127.0.0.1:1', bad, null, '5.3.0']);
      payloads.push(['dev', 'u-1', '127.0.0.1:1', null, bad, '5.3.0']);
      payloads.push(['x', 'u-1', '127.0.0.1:1', bad, bad, '5.3.0']);
    }
    // Well-shaped, but not a uuid or not a member address.
    for (const [uuid, address] of [
      ['', '127.0.0.1:1'],
      ['u-1', 'nowhere'],
      ['u-1', '127.0.0.1:99999'],
    ] as const) {
      payloads.push(P.encodeAuth({ clusterName: 'dev', uuid, address, version: '5.3.0' }));
    }
    payloads.push(null, 7, []);
    for (const p of payloads) {
      const peer = await MemberPeer.connect(port);
      const a = await peer.request(Msg.Auth, p);
      expect(a.ok, JSON.stringify(p)).toBe(false);
      await peer.closed;
    }
    await expectHealthy(c, 3, 20);
    expect(c.member(0).logMessages().some((l) => l.includes('member connection refused: malformed member message'))).toBe(true);
  }, 60_000);

  it('a Join naming a listener that answers Auth with garbage is refused, and the master lives on', async () => {
    for (let i = 0; i < 10; i++) expect((await c.http(0, 'POST', `/hazelcast/rest/maps/m/k${i}`, `v${i}`)).status).toBe(200);
    const master = c.member(await c.masterIndex(0));
    const garbage: WireValue[] = [[7, '127.0.0.1:1'], 'not a list', ['u-x'], [null, null], []];
    for (const answer of garbage) {
      const fake = await fakeMemberListener(() => ({ ok: true, payload: answer }));
      const address = `127.0.0.1:${fake.port}`;
      const peer = await MemberPeer.authenticated(master.port, 'dev', 'u-forged', address);
      const a = await peer.request(Msg.Join, joinAs('u-forged', address, fake.port), 10_000);
      expect(a.ok).toBe(false);
      expect(JSON.stringify(a.payload)).toContain('cannot reach');
      expect(fake.auths()).toBeGreaterThan(0);
    }
    // A listener that answers as somebody else.
    const liar = await fakeMemberListener(() => ({ ok: true, payload: P.encodeAuthAnswer({ uuid: 'u-somebody-else', address: '127.0.0.1:1', partitionHash: PARTITION_HASH_VERSION }) }));
    const liarAddress = `127.0.0.1:${liar.port}`;
    const peer = await MemberPeer.authenticated(master.port, 'dev', 'u-forged', liarAddress);
    const a = await peer.request(Msg.Join, joinAs('u-forged', liarAddress, liar.port), 10_000);
    expect(a.ok).toBe(false);
    expect(JSON.stringify(a.payload)).toContain('answers as member u-somebody-else');
    // A Join whose member differs from the connection's identity.
    const b = await peer.request(Msg.Join, joinAs('u-other', '127.0.0.1:2', 2));
    expect(b.ok).toBe(false);
    await expectHealthy(c, 3, 10);
    expect((await c.health(0)).clusterSafe).toBe(true);
  }, 60_000);

  it('forged cluster messages from a peer that knows the cluster name are refused: data, members, state and safety stay', async () => {
    const keys = 200;
    for (let i = 0; i < keys; i++) expect((await c.http(i % 3, 'POST', `/hazelcast/rest/maps/m/k${i}`, `v${i}`)).status).toBe(200);
    const info = await c.clusterInfo(0);
    const [masterUuid, secondUuid, thirdUuid] = info.members.map((m) => m.uuid) as [string, string, string];
    const target = c.byUuid(thirdUuid);
    // As a stranger (not in the member list).
    const stranger = await MemberPeer.authenticated(target.port, 'dev', 'u-stranger', '127.0.0.1:1');
    const pid = partitionIdOf('k0');
    const refusals: [string, Promise<{ ok: boolean; payload: WireValue }>][] = [
      ['partition copy', stranger.request(Msg.PartitionData, P.encodePartitionData({ partitionId: pid, replicaIndex: 0, data: {}, tableVersion: 1_000_000 }))],
      ['state prepare', stranger.request(Msg.StatePrepare, P.encodeStatePrepare({ txId: 'tx', state: 'PASSIVE', membersVersion: 1_000 }))],
      ['state commit', stranger.request(Msg.StateCommit, P.encodeStateCommit({ txId: 'tx', state: 'PASSIVE', membersVersion: 1_000 }))],
      ['leave request', stranger.request(Msg.LeaveRequest, P.encodeLeave({ uuid: secondUuid }))],
      ['backup', stranger.request(Msg.Backup, P.encodeBackup({ service: 'map', type: 'clear', partitionId: pid, args: ['m'], tableVersion: 1_000_000 }))],
      ['operation', stranger.request(Msg.Operation, P.encodeOperation({ service: 'map', type: 'clear', partitionId: pid, args: ['m'] }))],
      ['change state', stranger.request(Msg.ChangeState, P.encodeChangeState({ state: 'PASSIVE' }))],
      ['replica sync copy', stranger.request(Msg.ReplicaSyncData, P.encodeReplicaSyncData({ partitionId: pid, replicaIndex: 1, data: {}, versions: [1_000], tableVersion: 1_000_000 }))],
      ['merge', stranger.request(Msg.MergeTo, P.encodeMergeTo({ target: '127.0.0.1:1' }))],
    ];
    for (const [what, p] of refusals) {
      const a = await p;
      expect(a.ok, what).toBe(false);
      expect((a.payload as string[])[0], what).toBe('NOT_MEMBER');
    }
    stranger.oneWay(Msg.Leave, P.encodeLeave({ uuid: secondUuid }));
    stranger.oneWay(Msg.ClusterShutdown, P.encodeEmpty());
    stranger.oneWay(Msg.PartitionTable, P.encodePartitionTable({ version: 99, rows: [], migrationQueueSize: 0 }));
    // As a real member (its uuid) that is not the master: master-only messages and another member's Leave are refused.
    const impostor = await MemberPeer.authenticated(target.port, 'dev', secondUuid, c.byUuid(secondUuid).address);
    const masterOnly: [number, WireValue][] = [
      [Msg.StateCommit, P.encodeStateCommit({ txId: 'tx', state: 'PASSIVE', membersVersion: 1_000 })],
      [Msg.StatePrepare, P.encodeStatePrepare({ txId: 'tx', state: 'PASSIVE', membersVersion: 1_000 })],
      [Msg.Migrate, P.encodeMigrate({ partitionId: pid, replicas: [secondUuid], previousReplicas: [masterUuid] })],
      [Msg.MergeTo, P.encodeMergeTo({ target: '127.0.0.1:1' })],
    ];
    for (const [type, payload] of masterOnly) {
      const a = await impostor.request(type, payload);
      expect(a.ok, messageName(type)).toBe(false);
      expect(JSON.stringify(a.payload), messageName(type)).toContain('is not the master');
    }
    const leave = await impostor.request(Msg.LeaveRequest, P.encodeLeave({ uuid: masterUuid }));
    expect(leave.ok).toBe(false);
    impostor.oneWay(Msg.Leave, P.encodeLeave({ uuid: thirdUuid }));
    // A partition copy for a partition the sender does not own, with an old table stamp.
    const rows = await c.partitions(0);
    const notOwned = rows.partitions.findIndex((r) => r[0] !== secondUuid && r.includes(thirdUuid));
    const copy = await impostor.request(Msg.PartitionData, P.encodePartitionData({ partitionId: notOwned, replicaIndex: 1, data: {}, tableVersion: 1 }));
    expect(copy.ok).toBe(false);
    expect((copy.payload as string[])[0]).toBe('STALE_VIEW');
    await expectHealthy(c, 3, keys);
    await c.waitSafe();
    for (const m of c.live()) expect((await c.health(m.index)).clusterSafe).toBe(true);
  }, 90_000);
});
