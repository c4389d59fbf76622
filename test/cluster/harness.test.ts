// The cluster harness itself (test/support/cluster.ts): member processes start on their own
// ports with configs listing every port, kill/stop/exit are tracked, the write load and its
// checker count correctly, and nothing outlives a test. True with or without clustering.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { findMissing, startCluster, startWriteLoad } from '../support/cluster.js';
import { connectionRefused } from '../support/ports.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const pidsOfPreviousTest: number[] = [];

describe('cluster harness', () => {
  it('starts one member that is a safe cluster of one; stop is a graceful exit', async () => {
    const c = await startCluster({ size: 1 });
    const list = await c.waitForMembers(1);
    expect(list.map((m) => m.uuid)).toEqual([c.member(0).uuid]);
    expect(list[0]?.address).toBe(`127.0.0.1:${c.member(0).port}`);
    await c.waitSafe(5_000);
    expect((await c.http(0, 'POST', '/hazelcast/rest/maps/m/a', 'x')).status).toBe(200);
    expect(await c.http(0, 'GET', '/hazelcast/rest/maps/m/a')).toMatchObject({ status: 200, body: 'x' });
    expect(await c.stop(0)).toEqual({ code: 0, signal: null });
    expect(c.member(0).status).toBe('stopped');
    expect(c.live()).toEqual([]);
    expect(await connectionRefused(c.member(0).port)).toBe(true);
  });

  it('starts 3 member processes on their own ports, each listing every reserved port', async () => {
    const c = await startCluster({ size: 3, wait: 'up', lite: [2], properties: { 'hazelcast.operation.call.timeout.millis': 5000 } });
    expect(c.ports).toHaveLength(5);
    expect(new Set(c.ports).size).toBe(5);
    expect(new Set(c.members.map((m) => m.uuid)).size).toBe(3);
    for (const m of c.members) {
      expect(m.uuid).toMatch(/^[0-9a-f-]{36}$/);
      const raw = parse(readFileSync(m.configPath, 'utf8')) as { hazelcast: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(raw.hazelcast.network.port).toEqual({ port: m.port, 'auto-increment': false });
      expect(raw.hazelcast.network.join['tcp-ip']['member-list']).toEqual(c.ports.map((p) => `127.0.0.1:${p}`));
      expect(raw.hazelcast['lite-member']).toEqual({ enabled: m.index === 2 });
      expect(raw.hazelcast.properties).toEqual({
        'hazelcast.heartbeat.interval.seconds': 1,
        'hazelcast.max.no.heartbeat.seconds': 5,
        'hazelcast.operation.call.timeout.millis': 5000,
      });
      const info = await c.clusterInfo(m.index);
      expect(info.members.find((x) => x.localMember)).toMatchObject({ uuid: m.uuid, address: m.address, liteMember: m.index === 2 });
      expect((await c.health(m.index)).nodeState).toBe('ACTIVE');
    }
    pidsOfPreviousTest.push(...c.members.map((m) => m.process.child.pid ?? -1));

    await c.kill(1);
    expect(c.member(1).status).toBe('killed');
    expect(c.member(1).process.child.signalCode).toBe('SIGKILL');
    expect(await connectionRefused(c.member(1).port)).toBe(true);
    expect(c.live().map((m) => m.index)).toEqual([0, 2]);

    const added = await c.addMember({ config: { 'instance-name': 'newcomer' } });
    expect(added.index).toBe(3);
    expect(added.port).toBe(c.ports[3]);
    expect(added.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse((await c.http(3, 'GET', '/hazelcast/rest/instance')).body)).toEqual({ name: 'newcomer' });
    expect(c.live().map((m) => m.index)).toEqual([0, 2, 3]);
    pidsOfPreviousTest.push(added.process.child.pid ?? -1);
  });

  it('left no member process of the previous test running', () => {
    expect(pidsOfPreviousTest).toHaveLength(4);
    expect(pidsOfPreviousTest.filter(isAlive)).toEqual([]);
  });

  it('counts only writes answered 200 as acknowledged, and the checker finds wrong and missing entries', async () => {
    const c = await startCluster({ size: 1 });
    const load = startWriteLoad(c, { through: 0, map: 'load' });
    await load.waitForAcks(300);
    await load.stop();
    expect(load.records.length).toBeGreaterThanOrEqual(300);
    expect(load.statusCounts()).toEqual({ 200: load.records.length });
    expect(load.acked.size).toBe(load.records.length);
    // Keys are unique: as many distinct keys as writes.
    expect(new Set(load.records.map((r) => r.key)).size).toBe(load.records.length);
    expect(await findMissing(c, 0, 'load', load.acked)).toEqual([]);

    const tampered = new Map(load.acked);
    tampered.set('k0', 'not-what-was-written');
    tampered.set('never-written', 'x');
    const problems = await findMissing(c, 0, 'load', tampered);
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/^k0: expected 200 "not-what-was-written", got 200 "v0-/m);
    expect(problems.join('\n')).toMatch(/^never-written: expected 200 "x", got 204/m);

    // Writes that fail are recorded with their status and not acknowledged.
    const passive = await c.management(0, 'changeState', 'dev&&passive');
    expect(JSON.parse(passive.body)).toEqual({ status: 'success', state: 'passive' });
    const before = load.acked.size;
    const refused = startWriteLoad(c, { through: 0, map: 'load', prefix: 'p', concurrency: 2 });
    await expect.poll(() => refused.records.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(20);
    await refused.stop();
    expect(refused.acked.size).toBe(0);
    expect(Object.keys(refused.statusCounts())).toEqual(['503']);
    expect(load.acked.size).toBe(before);

    // A member that is gone answers nothing: status 0, not acknowledged.
    await c.kill(0);
    const dead = startWriteLoad(c, { through: 0, map: 'load', prefix: 'd', concurrency: 2 });
    await expect.poll(() => dead.records.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(4);
    await dead.stop();
    expect(dead.acked.size).toBe(0);
    // Pooled connections see a reset, new ones a refusal.
    expect(dead.records.filter((r) => r.status !== 0 || r.error === undefined)).toEqual([]);
    expect(dead.records.some((r) => /ECONNREFUSED/.test(r.error ?? ''))).toBe(true);
  });

  it('reports what it last saw when members do not converge', async () => {
    const c = await startCluster({ size: 2, spare: 0, wait: 'up', config: (i) => ({ 'cluster-name': `alone-${i}` }) });
    await expect(c.waitForMembers(2, undefined, 500)).rejects.toThrow(/timed out after 500 ms .*last seen: member 0: \[m0\*\]; member 1: \[m1\*\]/);
    await expect(c.waitSafe(500)).rejects.toThrow(/last seen: member 0: .*"clusterSize":1/);
  });
});
