// A load from official Node.js clients (hazelcast-client, default options but the cluster name
// and the member addresses: smart routing) for failover tests: each client writes unique map
// keys and offers unique queue items, one call in flight per lane, and records what was
// acknowledged and what failed (a failed call may or may not have been applied). Then the checks
// on it: acknowledged writes missing, queue items lost, invented or duplicated.

import { Client } from 'hazelcast-client';
import { sleep, waitFor } from './wait.js';

export interface ClientLoad {
  readonly clients: readonly Client[];
  /** Map keys acknowledged, with the value written. */
  readonly acked: Map<string, string>;
  /** Map keys whose set failed: maybe applied, maybe not. */
  readonly failed: Set<string>;
  /** Queue items whose offer answered true. */
  readonly offered: Set<string>;
  /** Queue items whose offer failed: maybe in the queue, maybe not. */
  readonly offerFailed: Set<string>;
  /** When each offer was issued and answered (Date.now()), for the at-least-once rule. */
  readonly offerSpan: Map<string, readonly [number, number]>;
  /** Every error message seen, counted. */
  readonly errors: Map<string, number>;
  /** Acknowledged calls so far (map sets + offers). */
  ackCount(): number;
  /** Resolves once `n` more calls were acknowledged after now (deadline; names the errors seen). */
  waitForAcks(n: number, timeoutMs?: number): Promise<void>;
  /** Stops issuing calls and waits for those in flight. */
  stop(): Promise<void>;
}

export interface ClientLoadOptions {
  readonly map?: string;
  readonly queue?: string;
  /** A label in every key and item, so two loads on one cluster never collide. */
  readonly prefix?: string;
}

/**
 * `n` clients with the default options but the cluster name, the member addresses (smart
 * routing) and `properties` (client properties, e.g. a shorter heartbeat timeout).
 */
export function connectClients(addresses: readonly string[], n: number, opts: { clusterName?: string; properties?: Record<string, string | number | boolean> } = {}): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      Client.newHazelcastClient({
        clusterName: opts.clusterName ?? 'dev',
        instanceName: `load-${i}`,
        network: { clusterMembers: [...addresses] },
        properties: { 'hazelcast.logging.level': 'OFF', ...opts.properties },
      }),
    ),
  );
}

/** Starts a map lane and a queue lane on each client. */
export async function startClientLoad(clients: readonly Client[], opts: ClientLoadOptions = {}): Promise<ClientLoad> {
  const prefix = opts.prefix ?? 'c';
  const acked = new Map<string, string>();
  const failed = new Set<string>();
  const offered = new Set<string>();
  const offerFailed = new Set<string>();
  const offerSpan = new Map<string, readonly [number, number]>();
  const errors = new Map<string, number>();
  let stopped = false;
  const note = (e: unknown): void => {
    const msg = `${(e as Error).name}: ${(e as Error).message}`.slice(0, 160);
    errors.set(msg, (errors.get(msg) ?? 0) + 1);
  };
  const lanes: Promise<void>[] = [];
  for (const [ci, client] of clients.entries()) {
    const map = await client.getMap<string, string>(opts.map ?? 'load');
    const queue = await client.getQueue<string>(opts.queue ?? 'loadq');
    lanes.push(
      (async () => {
        for (let n = 0; !stopped; n++) {
          const key = `${prefix}${ci}-k${n}`;
          const value = `v${n}`;
          try {
            await map.set(key, value);
            acked.set(key, value);
          } catch (e) {
            failed.add(key);
            note(e);
            await sleep(20); // a client without a connection fails at once: do not spin
          }
        }
      })(),
      (async () => {
        for (let n = 0; !stopped; n++) {
          const item = `${prefix}${ci}-i${n}`;
          const startedAt = Date.now();
          try {
            if (await queue.offer(item)) offered.add(item);
            else offerFailed.add(item);
          } catch (e) {
            offerFailed.add(item);
            note(e);
            await sleep(20);
          } finally {
            offerSpan.set(item, [startedAt, Date.now()]);
          }
        }
      })(),
    );
  }
  const ackCount = (): number => acked.size + offered.size;
  return {
    clients,
    acked,
    failed,
    offered,
    offerFailed,
    offerSpan,
    errors,
    ackCount,
    async waitForAcks(n, timeoutMs = 30_000) {
      const target = ackCount() + n;
      await waitFor(`${n} more acknowledged client calls (errors: ${JSON.stringify([...errors])})`, () => ackCount() >= target, timeoutMs, 20);
    },
    async stop() {
      stopped = true;
      await Promise.all(lanes);
    },
  };
}

/** Every item of a queue, polled through `client` until it answers empty. */
export async function drainQueue(client: Client, name: string): Promise<string[]> {
  const q = await client.getQueue<string>(name);
  const items: string[] = [];
  for (;;) {
    const batch = await Promise.all(Array.from({ length: 32 }, () => q.poll()));
    const got = batch.filter((x): x is string => x !== null);
    items.push(...got);
    if (got.length < batch.length) return items;
  }
}

/**
 * The queue's items judged by Hazelcast's at-least-once rule (docs/clients.md): every
 * acknowledged offer is there; nothing is there that was never offered; an item is there twice
 * only if its offer was in flight during a fault (issued before `faults[i].to`, answered after
 * `faults[i].from`: the owner may have run it and failed before answering, and the operation
 * was retried on the promoted backup, as Hazelcast's invocations retry on a member's loss), and
 * never more than twice. Every other item is there exactly once.
 */
export function judgeQueue(
  load: ClientLoad,
  items: readonly string[],
  faults: readonly { readonly from: number; readonly to: number }[] = [],
): { lost: string[]; invented: string[]; duplicated: string[] } {
  const seen = new Map<string, number>();
  for (const it of items) seen.set(it, (seen.get(it) ?? 0) + 1);
  const inFault = (it: string): boolean => {
    const span = load.offerSpan.get(it);
    return span !== undefined && faults.some((f) => span[0] <= f.to && span[1] >= f.from);
  };
  return {
    lost: [...load.offered].filter((it) => !seen.has(it)),
    invented: [...seen.keys()].filter((it) => !load.offered.has(it) && !load.offerFailed.has(it)),
    duplicated: [...seen].filter(([it, n]) => n > 2 || (n === 2 && !inFault(it))).map(([it, n]) => `${it} x${n}`),
  };
}
