// The official clients against Grid and against a real Hazelcast member, the same scenarios on
// both so every expectation is Hazelcast's own (issue 24):
// - the Java client (test/support/java/ClientScenarios.java, compiled at test time against the
//   com.hazelcast:hazelcast jar the reference member runs), one JVM for the three targets: one
//   Grid member, 3 Grid members (smart routing, the client's default) and one Hazelcast member;
// - the Node.js client's scenarios (scenarios.ts, run against one Grid member in
//   map-queue.test.ts) against the Hazelcast member and the 3 Grid members.
// Skips, saying why, where there is no JDK or no jar.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { startCluster, type Cluster } from '../support/cluster.js';
import { ALL_GROUPS, REFERENCE_VERSION, startReference, type HazelcastMember } from '../support/hazelcast.js';
import { compileJava, javaUnavailable, runJava, type JavaRun } from '../support/java.js';
import { clientOptions, restGet, SCENARIOS, type ScenarioTarget } from './scenarios.js';

const unavailable = javaUnavailable();

/**
 * What each step of ClientScenarios.java answers on a Hazelcast member (checked against the
 * Hazelcast member below, so this table is Hazelcast's behaviour, not Grid's). Values: JSON,
 * `{long: n}` for a Long, `{bytes: hex}` for a byte[].
 */
const JAVA_EXPECTED: Record<string, unknown> = {
  'map.put k1 v1': null,
  'map.get k1': 'v1',
  'map.put k1 v2': 'v1',
  'map.set k2': null,
  'map.get k2': 'héllo ☃',
  'map.containsKey k1': true,
  'map.containsKey nope': false,
  'map.get nope': null,
  'map.size 2': 2,
  'map.isEmpty 2': false,
  'map.remove k1': 'v2',
  'map.remove k1 again': null,
  'map.delete k2': null,
  'map.size 0': 0,
  'map.set a': null,
  'map.set b': null,
  'map.clear': null,
  'map.size after clear': 0,
  'map.isEmpty after clear': true,
  'map.set rest-s': null,
  'map.set bytes': null,
  'map.get bytes': { bytes: '000102ff' },
  'map.set int': null,
  'map.get int': 42,
  'map.set long': null,
  'map.get long': { long: -7 },
  'map.set bool': null,
  'map.get bool': true,
  'map.put int over bytes': { bytes: '000102ff' },
  'map.set 200 keys': null,
  'map.get 200 keys: wrong': 0,
  'map.size 200': 200,
  'queue.offer a': true,
  'queue.offer b': true,
  'queue.size 2': 2,
  'queue.peek': 'a',
  'queue.poll a': 'a',
  'queue.poll b': 'b',
  'queue.poll empty': null,
  'queue.peek empty': null,
  'queue.isEmpty': true,
  'queue.poll 100 ms empty': null,
  'queue.poll waits for an offer': 'late/true',
  'queue.size 0': 0,
  'queue.offer rest-item': true,
  'map.put a': null,
  'map.putIfAbsent present': 'v1',
  'map.putIfAbsent absent': null,
  'map.replace absent': null,
  'map.containsKey none': false,
  'map.replace b': 'x',
  'map.replaceIfSame wrong': false,
  'map.replaceIfSame right': true,
  'map.removeIfSame absent': false,
  'map.removeIfSame right': true,
  'map.putTransient': null,
  'map.tryPut': true,
  'map.tryRemove': true,
  'map.tryRemove again': false,
  'map.putAll': null,
  'map.getAll': '{p1=v1, p19=v19}',
  'map.setTtl missing': false,
  'map.size 22': 22,
  'map.entryView new': 'value=v1 version=0 ttl=9223372036854775807 maxIdle=9223372036854775807 expires=never creation=-1 hits=-1 access=-1 stored=-1 updated=-1 cost=positive',
  'map.entryView updated': 'value=v2 version=1 ttl=9223372036854775807 maxIdle=9223372036854775807 expires=never creation=-1 hits=-1 access=-1 stored=-1 updated=-1 cost=positive',
  'map.entryView setTtl': 'value=v2 version=2 ttl=60000 maxIdle=9223372036854775807 expires=later creation=-1 hits=-1 access=-1 stored=-1 updated=yes cost=positive',
  'map.entryView setTtl 0': 'value=v2 version=3 ttl=9223372036854775807 maxIdle=9223372036854775807 expires=never creation=-1 hits=-1 access=-1 stored=-1 updated=-1 cost=positive',
  'map.entryView ttl 0': 'value=v version=0 ttl=9223372036854775807 maxIdle=9223372036854775807 expires=never creation=-1 hits=-1 access=-1 stored=-1 updated=-1 cost=positive',
  'map.entryView ttl and max-idle': 'value=v version=0 ttl=60000 maxIdle=30000 expires=later creation=-1 hits=-1 access=-1 stored=-1 updated=yes cost=positive',
  'map.entryView missing': null,
  'keys.put long 7': null,
  'keys.put int 7': null,
  'keys.put string 7': null,
  'keys.put bytes': null,
  'keys.put list': null,
  'keys.size 5': 5,
  'keys.get long 7': 'long',
  'keys.get int 7': 'int',
  'keys.get bytes copy': 'bytes',
  'keys.get list copy': 'list',
  'keys.containsKey long 8': false,
  'keys.keySet': '[ArrayList:[a, 7], Integer:7, Long:7, String:7, bytes:0007]',
  'keys.putIfAbsent int': 'int',
  'keys.replace long': 'long',
  'keys.replaceIfSame bytes': true,
  'keys.removeIfSame list wrong': false,
  'keys.remove list': 'list',
  'keys.getAll': '[Integer:7=int, Long:7=long2]',
  'keys.size 4': 4,
  'queue.remainingCapacity empty': 2147483647,
  'queue.put a': null,
  'queue.addAll': true,
  'queue.remainingCapacity 5': 2147483642,
  'queue.contains d': true,
  'queue.containsAll': false,
  'queue.remove c': true,
  'queue.remove zz': false,
  'queue.toArray': '[a, b, d, c]',
  'queue.drainTo 2': '2 [pre, a, b]',
  'queue.drainTo all': '2 [d, c]',
  'queue.offer 100 ms': true,
  'queue.take': 'x',
  'queue.clear': 0,
  'cp.atomicLong without CP': 'java.lang.UnsupportedOperationException',
  done: true,
};

describe.skipIf(unavailable !== undefined)(`the official clients on Grid and on Hazelcast ${REFERENCE_VERSION}`, () => {
  let hz: HazelcastMember;
  let one: Cluster;
  let three: Cluster;
  let java: JavaRun;
  /** Per target, the address its REST is read at. */
  const rest: Record<string, string> = {};

  beforeAll(async () => {
    const classpath = compileJava('ClientScenarios');
    [hz, one, three] = await Promise.all([
      startReference({ clusterName: 'dev', groups: ALL_GROUPS }),
      startCluster({ size: 1, spare: 0, scope: 'file' }),
      startCluster({ size: 3, spare: 0, scope: 'file' }),
    ]);
    rest.hazelcast = `127.0.0.1:${hz.port}`;
    rest.grid1 = one.member(0).address;
    rest.grid3 = three.member(0).address;
    // The 3-member client knows only member 0 at first: the members view takes it to the others.
    java = await runJava(classpath, 'ClientScenarios', Object.entries(rest).map(([t, a]) => `${t}=dev@${a}`), 150_000);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([hz?.stop(), one?.destroy(), three?.destroy()]);
  });

  function steps(target: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const l of java.lines) if (l.target === target) out[l.step as string] = 'error' in l ? { error: l.error } : l.value;
    return out;
  }

  describe('the Java client', () => {
    it('runs every step as on Hazelcast: on Hazelcast itself, on one Grid member and on 3 Grid members', () => {
      const got = { hazelcast: steps('hazelcast'), grid1: steps('grid1'), grid3: steps('grid3') };
      const connected = { hazelcast: 1, grid1: 1, grid3: 3 };
      for (const [t, n] of Object.entries(connected)) {
        expect(got[t as keyof typeof got], `${t}:\n${java.log.slice(-4000)}`).toEqual({ connect: n, connections: n, ...JAVA_EXPECTED });
      }
      expect(java.code).toBe(0);
    });

    it('values it wrote read over REST as Hazelcast serves them', async () => {
      for (const [t, address] of Object.entries(rest)) {
        const target = { address };
        const s = await restGet(target, '/hazelcast/rest/maps/jm1/rest-s');
        expect([t, s.status, s.contentType, s.bytes.toString('utf8')]).toEqual([t, 200, 'text/plain', 'from-java']);
        // An Integer: its whole serialized Data (type -7, big-endian 42).
        const n = await restGet(target, '/hazelcast/rest/maps/jm2/int');
        expect([t, n.contentType, n.bytes.toString('hex')]).toEqual([t, 'application/binary', '00000000fffffff90000002a']);
        // Of the keys of types other than String, REST names none: the String key "7" is the entry it reads.
        const k = await restGet(target, '/hazelcast/rest/maps/jm5/7');
        expect([t, k.status, k.contentType, k.bytes.toString('utf8')]).toEqual([t, 200, 'text/plain', 'string']);
        const q = await restGet(target, '/hazelcast/rest/queues/jq1/1');
        expect([t, q.status, q.contentType, q.bytes.toString('utf8')]).toEqual([t, 200, 'text/plain', 'to-rest']);
      }
    });

    it('connected to every Grid member of the 3 (smart routing), and no member logged a client request it failed', () => {
      for (const i of [0, 1, 2]) expect(three.member(i).logMessages(), `member ${i}`).toContain('client authenticated');
      for (const m of [one.member(0), ...three.members]) {
        expect(m.logMessages().filter((l) => l.startsWith('client ')).filter((l) => !l.startsWith('client authenticated'))).toEqual([]);
      }
    });
  });

  // The same scenarios on Hazelcast (unisocket, as in map-queue.test.ts on one Grid member) and on
  // the 3 Grid members above (smart routing: each key's call goes to its owner).
  for (const [name, which, smartRouting] of [
    ['Hazelcast', 'hazelcast', false],
    ['3 Grid members (smart routing)', 'grid3', true],
  ] as const) {
    describe(`the Node.js client's scenarios on ${name}`, () => {
      let client: Client;
      let target: ScenarioTarget;

      beforeAll(async () => {
        const address = rest[which]!;
        client = await Client.newHazelcastClient(clientOptions(address, 'dev', { smartRouting }));
        target = { client, address, clusterName: 'dev' };
      }, 60_000);

      afterAll(async () => {
        await client?.shutdown();
      });

      for (const s of SCENARIOS) it(s.name, () => s.run(target), 30_000);
    });
  }
});
