// Fuzz of Hazelcast's client protocol on Grid: (1) in process, the pure decoders fed valid
// messages the official client's own encoders wrote, mutated: whatever the bytes, the frame
// reader gives the same outcome whole, chunked and byte by byte, and every decoder either
// decodes or throws a GridError (BAD_REQUEST; UNSUPPORTED for what Grid does not serve;
// PAYLOAD_TOO_LARGE from the reader). (2) Against a real member, the same streams sent before and
// after authentication and then half-closed: each connection answers what it can and closes; the member
// never crashes, and a real client and REST keep working (canaries). FUZZ_CASES scales both.

import { createRequire } from 'node:module';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { requestHeader } from '../../src/client/codec.js';
import { decodeAuthRequest } from '../../src/client/auth-codec.js';
import { keyOf, storedFormOf } from '../../src/client/data.js';
import { partitionIdOfKey } from '../../src/map/map-keys.js';
import { FrameReader, type ClientMessage } from '../../src/client/frame.js';
import { MessageId } from '../../src/client/message-ids.js';
import { decodeMapRequest, type MapRequest } from '../../src/client/map-codecs.js';
import { decodeDataRequest, type DataRequest } from '../../src/client/request-codecs.js';
import { decodeQueueRequest } from '../../src/client/queue-codecs.js';
import { decodeAtomicLongRequest } from '../../src/client/atomic-long-codecs.js';
import { GridError } from '../../src/core/errors.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { within } from '../support/process.js';
import { CAPTURED_AUTH } from '../unit/client/vectors.js';
import { hz, hzBytes, hzData, hzSerializer, Long } from '../unit/client/hz-client.js';
import { DEFAULT_SEED, Rng, caseSeed, chunkBytes, mutateMany } from './engine.js';

const DECODER_CASES = Number(process.env.FUZZ_DECODER_CASES ?? 3000);
const LIVE_CASES = Math.min(Number(process.env.FUZZ_CASES ?? 60), 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);

const require = createRequire(import.meta.url);
type ClientCodec = Record<string, (...args: unknown[]) => unknown>;
const clientCodec = (name: string): ClientCodec => (require(`hazelcast-client/lib/codec/${name}.js`) as Record<string, ClientCodec>)[name]!;
const { RaftGroupId } = require('hazelcast-client/lib/proxy/cpsubsystem/RaftGroupId.js') as { RaftGroupId: new (name: string, seed: unknown, id: unknown) => unknown };

const ser = hzSerializer();
const d = (v: unknown) => hzData(ser.toData(v).toBuffer());
const T = Long.fromNumber(0);

/** Valid requests as hazelcast-client 5.7.0 encodes them: the seeds the mutations start from. */
const SEEDS: Buffer[] = [
  CAPTURED_AUTH,
  hzBytes(hz.mapPut.encodeRequest!('m', d('k1'), d('v1'), T, Long.fromNumber(-1)) as never, 2),
  hzBytes(hz.mapSet.encodeRequest!('m', d('k2'), d({ a: [1, 2] }), T, Long.fromNumber(-1)) as never, 3),
  hzBytes(hz.mapGet.encodeRequest!('m', d('k1'), T) as never, 4),
  hzBytes(hz.mapRemove.encodeRequest!('m', d(1.5), T) as never, 5),
  hzBytes(hz.mapContainsKey.encodeRequest!('m', d('héllo'), T) as never, 6),
  hzBytes(hz.mapSize.encodeRequest!('m') as never, 7),
  hzBytes(hz.mapClear.encodeRequest!('m') as never, 8),
  hzBytes(hz.queueOffer.encodeRequest!('q', d(Buffer.from([0, 1, 255])), Long.fromNumber(0)) as never, 9),
  hzBytes(hz.queuePoll.encodeRequest!('q', Long.fromNumber(0)) as never, 10),
  hzBytes(hz.queuePeek.encodeRequest!('q') as never, 11),
  hzBytes(hz.clusterView.encodeRequest!() as never, 12),
  hzBytes(hz.backupListener.encodeRequest!() as never, 13),
  hzBytes(clientCodec('QueueAddAllCodec').encodeRequest!('q', [d('a'), d(Buffer.from([9]))]) as never, 14),
  hzBytes(clientCodec('QueueDrainToMaxSizeCodec').encodeRequest!('q', 3) as never, 15),
  hzBytes(clientCodec('QueueTakeCodec').encodeRequest!('q') as never, 16),
  hzBytes(clientCodec('QueueContainsAllCodec').encodeRequest!('q', [d('a')]) as never, 17),
  hzBytes(clientCodec('CPGroupCreateCPGroupCodec').encodeRequest!('c@g') as never, 18),
  hzBytes(clientCodec('AtomicLongCompareAndSetCodec').encodeRequest!(new RaftGroupId('g', Long.fromNumber(7), Long.fromNumber(2)), 'c', Long.fromNumber(1), Long.fromNumber(2)) as never, 19),
];

function fuzzStream(rng: Rng, withAuth: boolean): Buffer {
  const parts: Buffer[] = withAuth ? [CAPTURED_AUTH] : [];
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) {
    const seed = rng.pick(SEEDS);
    parts.push(rng.chance(0.7) ? mutateMany(rng, seed, 1 + rng.int(4), SEEDS) : seed);
  }
  return Buffer.concat(parts);
}

const ALLOWED = new Set(['BAD_REQUEST', 'UNSUPPORTED', 'PAYLOAD_TOO_LARGE']);

function outcome(fn: () => unknown, what: string): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof GridError && ALLOWED.has(e.code)) return `${e.code}: ${e.message}`;
    throw new Error(`${what}: expected a GridError (${[...ALLOWED].join(', ')}), got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
  }
}

function readAll(chunks: readonly Buffer[]): { messages: ClientMessage[]; error: string | undefined } {
  const reader = new FrameReader(1 << 20);
  const messages: ClientMessage[] = [];
  for (const c of chunks) {
    try {
      messages.push(...reader.push(c));
    } catch (e) {
      return { messages, error: outcome(() => { throw e; }, 'frame reader') };
    }
  }
  return { messages, error: undefined };
}

const show = (m: ClientMessage): string => m.map((f) => `${f.flags}:${f.content.toString('hex')}`).join('|');

/** Every decoder a member runs on a message. */
function decodeEverything(m: ClientMessage, what: string): void {
  outcome(() => {
    const h = requestHeader(m);
    if (h.type === MessageId.ClientAuthentication) return decodeAuthRequest(m);
    // The queue and atomic long decoders, as the connection tries them (queue-codecs.ts, atomic-long-codecs.ts).
    const q = decodeQueueRequest(h.type, m);
    if (q !== undefined) {
      if ('value' in q) outcome(() => storedFormOf(q.value), `${what} queue item`);
      if ('values' in q) for (const v of q.values) outcome(() => storedFormOf(v), `${what} queue items`);
      return q;
    }
    const al = decodeAtomicLongRequest(h.type, m);
    if (al !== undefined) return al;
    const r: DataRequest | MapRequest | undefined = decodeDataRequest(h.type, m) ?? decodeMapRequest(h.type, m);
    if (r !== undefined && 'key' in r) {
      outcome(() => {
        // Any key bytes: a store key, placed in a partition (map-keys.ts), or a GridError.
        const pid = partitionIdOfKey(keyOf(r.key));
        if (!(pid >= 0 && pid < 271)) throw new Error(`partition ${pid} out of range`);
        return pid;
      }, `${what} key`);
    }
    if (r !== undefined && 'value' in r) outcome(() => storedFormOf(r.value), `${what} value`);
    return r;
  }, what);
}

describe('fuzz: client protocol decoders', () => {
  it(`${DECODER_CASES} mutated client streams: same frames whole, chunked and byte by byte; decoders decode or refuse with a GridError`, () => {
    for (let i = 0; i < DECODER_CASES; i++) {
      const rng = new Rng(caseSeed(SEED ^ 0xc1e7, i));
      const bytes = fuzzStream(rng, rng.chance(0.5));
      const what = `client decoder case ${i} (seed ${SEED}): ${bytes.toString('hex').slice(0, 300)}`;
      const whole = readAll([bytes]);
      const byByte = readAll(Array.from(bytes, (x) => Buffer.of(x)));
      const chunked = readAll(chunkBytes(rng, bytes));
      for (const r of [whole, chunked]) {
        expect(r.error, what).toBe(byByte.error);
        // A chunk holding a bad frame is refused whole: fewer messages, never other ones.
        expect(byByte.messages.slice(0, r.messages.length).map(show), what).toEqual(r.messages.map(show));
        if (r.error === undefined) expect(r.messages.length, what).toBe(byByte.messages.length);
      }
      for (const m of byByte.messages) decodeEverything(m, what);
    }
  });
});

describe('fuzz: client protocol against a member', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ size: 1, spare: 0, scope: 'file' });
  }, 60_000);
  afterAll(async () => {
    await c?.destroy();
  });

  /** A real client and REST still work on the member. */
  async function canary(round: number): Promise<void> {
    const client = await within(
      Client.newHazelcastClient({ clusterName: 'dev', network: { clusterMembers: [c.member(0).address], smartRouting: false }, properties: { 'hazelcast.logging.level': 'OFF' } }),
      20_000,
      `the canary client to connect (round ${round})`,
    );
    try {
      const m = await client.getMap<string, string>('canary');
      await m.set('k', `v${round}`);
      expect(await m.get('k')).toBe(`v${round}`);
      const r = await c.http(0, 'GET', '/hazelcast/rest/maps/canary/k');
      expect(r.body).toBe(`v${round}`);
    } finally {
      await client.shutdown();
    }
  }

  it(`${LIVE_CASES} mutated streams before and after authentication: no crash, no wedge`, async () => {
    const outcomes = { answeredPing: 0, closed: 0 };
    for (let i = 0; i < LIVE_CASES; i++) {
      const rng = new Rng(caseSeed(SEED ^ 0x11fe, i));
      const bytes = Buffer.concat([Buffer.from('CP2'), fuzzStream(rng, rng.chance(0.7))]);
      // A ping with a correlation id no seed uses: its answer shows the connection is still served.
      const ping = hzBytes(hz.clusterView.encodeRequest!() as never, 0x7ee1);
      ping.writeInt32LE(MessageId.ClientPing, 6);
      const socket = net.connect({ host: '127.0.0.1', port: c.member(0).port });
      socket.on('error', () => undefined);
      const reader = new FrameReader(1 << 26, 13);
      // After the stream and the ping the socket is half-closed: the member must answer what it
      // can and close. Neither within the deadline is a wedge.
      let answeredPing = false;
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('data', (b: Buffer) => {
        try {
          for (const m of reader.push(b)) if (m[0]!.content.readBigInt64LE(4) === 0x7ee1n) answeredPing = true;
        } catch {
          socket.destroy(); // the member's bytes did not parse: caught by the reader tests, not here
        }
      });
      socket.once('connect', () => {
        for (const chunk of chunkBytes(rng, bytes)) socket.write(chunk);
        socket.end(ping);
      });
      await within(closed, 10_000, `case ${i} (seed ${SEED}): the member to close the half-closed connection (a wedge): ${bytes.toString('hex').slice(0, 300)}`);
      const result = answeredPing ? 'answeredPing' : 'closed';
      socket.destroy();
      outcomes[result]++;
      expect(c.member(0).process.child.exitCode, `case ${i}: the member exited`).toBeNull();
      if ((i + 1) % 50 === 0) await canary(i);
    }
    await canary(LIVE_CASES);
    expect(c.member(0).logMessages().filter((l) => /client request .* failed/.test(l)), 'unexpected (non-GridError) failures').toEqual([]);
    // Some streams stay well-formed enough for the ping behind them to be answered.
    expect(outcomes.answeredPing, JSON.stringify(outcomes)).toBeGreaterThan(0);
  }, 600_000);
});
