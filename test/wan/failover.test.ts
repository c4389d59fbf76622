// kill -9 of a source member under write load (backup-count 1): every write that got a 200
// reaches the target. The victim's publisher is paused first, so at the kill it holds a backlog
// that only the backups of its queues (promoted on the survivors) can still deliver.

import { expect, it } from 'vitest';
import { startWriteLoad } from '../support/cluster.js';
import {
  configOf,
  endpointsOf,
  launch,
  publisherOn,
  replicatedMap,
  reserveCluster,
  sumOf,
  waitCounter,
  waitForEntries,
  wanOk,
  wanReplication,
} from '../support/wan.js';
import { waitFor } from '../support/process.js';

const REP = 'to-b';
const ID = 'b';
const MAP = 'load-wan';

it('kill -9 of a source member under write load: every acknowledged write reaches the target', async () => {
  const b = await reserveCluster('B', 1);
  const a = await reserveCluster('A', 3, () =>
    configOf(wanReplication(REP, { clusterName: 'B', publisherId: ID, endpoints: endpointsOf(b) }), replicatedMap('load*', REP, { backupCount: 1 })),
  );
  await Promise.all([launch(a, 3), launch(b, 1)]);
  const list = await a.waitForMembers(3);
  const through = a.byUuid(list[0]!.uuid).index; // the load goes through the master
  const victim = a.byUuid(list[2]!.uuid).index;
  const survivors = a.members.map((m) => m.index).filter((i) => i !== victim);

  const load = startWriteLoad(a, { through, map: MAP, concurrency: 8 });
  await load.waitForAcks(200);
  // The victim stops sending: from here its partitions' events pile up on it (and on their backups).
  await wanOk(a, victim, 'pausePublisher', REP, ID);
  await load.waitForAcks(300);
  const backlog = await waitFor(
    "a backlog of the victim's events",
    async () => {
      const n = (await publisherOn(a, victim, REP, ID)).primaryQueueSize;
      return n >= 50 ? n : false;
    },
    10_000,
    50,
  );
  const backups = await sumOf(a, REP, ID, 'backupQueueSize', survivors);
  expect(backups, `the survivors back up the victim's ${backlog} queued events`).toBeGreaterThanOrEqual(backlog);

  await a.kill(victim);
  await a.waitForMembers(2);
  await a.waitSafe();
  await load.waitForAcks(200);
  await load.stop();
  expect(load.acked.size).toBeGreaterThan(700);

  await waitForEntries(b, 0, MAP, load.acked, 30_000, `every acknowledged write (${load.acked.size}) on B`);
  await waitCounter(a, REP, ID, 'primaryQueueSize', (n) => n === 0);
}, 90_000);
