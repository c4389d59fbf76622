// `npm run chaos:split-heal`: the long tier of issue 27 (a healed split brain merges once and
// stays merged). Every member in a network namespace of its own, packets between the sides
// dropped silently (TCP backs off as behind a dead switch), SPLIT_HEAL_ROUNDS cycles per case
// on one cluster (default 4): split time, merge time, 2 x max-no-heartbeat without a suspicion
// after the merge, one merge per merging member, acknowledged writes per merge policy. The
// bounded `npm test` runs one cycle (test/cluster/split-heal.test.ts).

import { describe, expect, it } from 'vitest';
import { netnsUnavailable } from '../support/netns.js';
import {
  SPLIT_HEAL_HEARTBEAT_MS,
  SPLIT_HEAL_MAX_NO_HEARTBEAT_MS,
  SPLIT_HEAL_MERGE_DELAY_MS,
  describeCycle,
  memberOrder,
  splitAndHeal,
  startSplitCluster,
  type SplitHealTimes,
} from '../support/split-heal.js';

const unavailable = netnsUnavailable();
const rounds = Number(process.env.SPLIT_HEAL_ROUNDS ?? 4);
const SLACK_MS = 1_500;
const log = (line: string): void => void process.stderr.write(`${line}\n`);

function check(what: string, t: SplitHealTimes, maxNoHeartbeatMs: number, heartbeatMs: number, joinMs: number): void {
  log(`${what}: cut ${t.cutMs} ms, split after ${t.splitMs} ms, merged ${t.mergeMs} ms after the heal`);
  expect(t.splitMs, `${what}: split time`).toBeLessThanOrEqual(maxNoHeartbeatMs + heartbeatMs + SLACK_MS);
  // Not before the deadline either: a stalled connection replaced is no reason to suspect a member.
  expect(t.splitMs, `${what}: split time`).toBeGreaterThanOrEqual(maxNoHeartbeatMs - heartbeatMs);
  expect(t.mergeMs, `${what}: merge time`).toBeLessThanOrEqual(SPLIT_HEAL_MERGE_DELAY_MS + joinMs + SLACK_MS);
}

describe.skipIf(unavailable !== undefined)('split and heal, repeated', () => {
  it(`3 members: the second-oldest cut, from the master first, 10 s and 20 s, ${rounds} rounds`, async () => {
    const { c, lab } = await startSplitCluster(3);
    for (let r = 0; r < rounds; r++) {
      const order = await memberOrder(c);
      const isolated = [order[1]!];
      const t = await splitAndHeal(c, lab, { isolated, cutMs: r % 2 === 0 ? 10_000 : 20_000, round: r, staggerMs: 1_000 });
      check(`round ${r}: ${describeCycle(3, isolated, order)}`, t, SPLIT_HEAL_MAX_NO_HEARTBEAT_MS, SPLIT_HEAL_HEARTBEAT_MS, 1_000);
    }
  }, rounds * 120_000 + 60_000);

  it(`3 members: the master cut, 20 s, ${rounds} rounds`, async () => {
    const { c, lab } = await startSplitCluster(3);
    for (let r = 0; r < rounds; r++) {
      const order = await memberOrder(c);
      const isolated = [order[0]!];
      const t = await splitAndHeal(c, lab, { isolated, cutMs: 20_000, round: r });
      check(`round ${r}: ${describeCycle(3, isolated, order)}`, t, SPLIT_HEAL_MAX_NO_HEARTBEAT_MS, SPLIT_HEAL_HEARTBEAT_MS, 1_000);
    }
  }, rounds * 120_000 + 60_000);

  it(`5 members: a minority of two (the master and the youngest) cut, 20 s, ${rounds} rounds`, async () => {
    const { c, lab } = await startSplitCluster(5);
    for (let r = 0; r < rounds; r++) {
      const order = await memberOrder(c);
      const isolated = [order[0]!, order[4]!];
      const t = await splitAndHeal(c, lab, { isolated, cutMs: 20_000, round: r });
      check(`round ${r}: ${describeCycle(5, isolated, order)}`, t, SPLIT_HEAL_MAX_NO_HEARTBEAT_MS, SPLIT_HEAL_HEARTBEAT_MS, 2_000);
    }
  }, rounds * 150_000 + 90_000);

  it("5 members with Hazelcast's default deadline (heartbeat 5 s, max-no-heartbeat 60 s): a minority of two cut 70 s", async () => {
    const { c, lab } = await startSplitCluster(5, { 'hazelcast.heartbeat.interval.seconds': 5, 'hazelcast.max.no.heartbeat.seconds': 60 });
    const order = await memberOrder(c);
    const isolated = [order[1]!, order[3]!];
    const t = await splitAndHeal(c, lab, { isolated, cutMs: 70_000, round: 0, staggerMs: 1_000, maxNoHeartbeatMs: 60_000 });
    check(describeCycle(5, isolated, order), t, 60_000, 5_000, 2_000);
  }, 420_000);
});
