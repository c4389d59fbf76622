// The client protocol's edges over raw sockets against a real member process: what no official
// client sends on purpose (unknown messages, requests before authentication, malformed frames)
// gets an error frame or closes that connection only, never silence; the member and its other
// clients carry on.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'hazelcast-client';
import { MessageCursor, readInt32, RESPONSE_FIXED_OFFSET } from '../../src/client/codec.js';
import { encodeMessage, Flag, FrameReader, type ClientMessage } from '../../src/client/frame.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import { CAPTURED_AUTH } from '../unit/client/vectors.js';
import { waitFor, within } from '../support/process.js';
import { hz, hzBytes, hzData, hzRead, hzSerializer, Long } from '../unit/client/hz-client.js';

let c: Cluster;

beforeAll(async () => {
  c = await startCluster({ size: 1, spare: 0, scope: 'file' });
}, 60_000);

afterAll(async () => {
  await c?.destroy();
});

/** A raw connection: what it read, as messages, and whether the member closed it. */
class Raw {
  readonly socket: net.Socket;
  // Responses: a 13-byte initial frame at least.
  private readonly reader = new FrameReader(undefined, 13);
  private readonly messages: ClientMessage[] = [];
  private waiting: (() => void) | undefined;
  readonly closed: Promise<void>;

  constructor(port: number) {
    this.socket = net.connect({ host: '127.0.0.1', port });
    this.socket.on('data', (b: Buffer) => {
      this.messages.push(...this.reader.push(b));
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  send(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  async next(): Promise<ClientMessage> {
    const wait = async (): Promise<ClientMessage> => {
      while (this.messages.length === 0) await new Promise<void>((r) => (this.waiting = r));
      return this.messages.shift()!;
    };
    return within(wait(), 5_000, 'a message from the member');
  }
}

function request(type: number, correlationId: bigint, ...strings: string[]): Buffer {
  const init = Buffer.alloc(16);
  init.writeInt32LE(type, 0);
  init.writeBigInt64LE(correlationId, 4);
  init.writeInt32LE(-1, 12);
  return encodeMessage([{ flags: Flag.UNFRAGMENTED, content: init }, ...strings.map((s) => ({ flags: 0, content: Buffer.from(s) }))]);
}

function errorCodeOf(m: ClientMessage): { code: number; className: string; message: string | null } {
  expect(readInt32(m[0]!.content, 0)).toBe(0); // the error message type
  const cur = new MessageCursor(m);
  cur.begin('holders');
  cur.begin('holder');
  const fixed = cur.bytes('code');
  const className = cur.string();
  const message = cur.nullable(() => cur.string());
  return { code: fixed.readInt32LE(0), className, message };
}

async function authenticated(): Promise<Raw> {
  const r = new Raw(c.member(0).port);
  // The header byte by byte: the member waits for the third byte before it decides.
  r.send('C');
  await new Promise((res) => setImmediate(res));
  r.send('P');
  await new Promise((res) => setImmediate(res));
  r.send(Buffer.concat([Buffer.from('2'), CAPTURED_AUTH]));
  const auth = await r.next();
  expect(readInt32(auth[0]!.content, 0)).toBe(0x000101);
  expect(auth[0]!.content[RESPONSE_FIXED_OFFSET]).toBe(0); // AUTHENTICATED
  return r;
}

describe('client protocol edges on a real member', () => {
  it('answers an unknown message type with UNSUPPORTED_OPERATION and keeps serving the connection', async () => {
    const r = await authenticated();
    r.send(request(0x7f0100, 11n));
    const err = await r.next();
    expect(err[0]!.content.readBigInt64LE(4)).toBe(11n);
    expect(errorCodeOf(err)).toMatchObject({ code: 61, className: 'java.lang.UnsupportedOperationException' });
    r.send(request(0x000b00, 12n)); // ClientPing
    const pong = await r.next();
    expect(readInt32(pong[0]!.content, 0)).toBe(0x000b01);
    expect(pong[0]!.content.readBigInt64LE(4)).toBe(12n);
    // A Map.Get without its key: a malformed request is refused with ILLEGAL_ARGUMENT, not silence.
    r.send(request(0x010200, 13n, 'm'));
    const bad = await r.next();
    expect(errorCodeOf(bad)).toMatchObject({ code: 23 });
    r.socket.destroy();
  });

  it('refuses a request before authentication with AUTHENTICATION and closes', async () => {
    const r = new Raw(c.member(0).port);
    r.send(Buffer.concat([Buffer.from('CP2'), request(0x000b00, 1n)]));
    expect(errorCodeOf(await r.next())).toMatchObject({ code: 3 });
    await within(r.closed, 5_000, 'the connection to close');
  });

  it('a malformed frame closes that connection only; a real client on the member carries on', async () => {
    const client = await Client.newHazelcastClient({
      clusterName: 'dev',
      network: { clusterMembers: [c.member(0).address], smartRouting: false },
      properties: { 'hazelcast.logging.level': 'OFF' },
    });
    try {
      const m = await client.getMap<string, string>('raw1');
      await m.set('k', 'before');
      for (const garbage of [
        Buffer.from('0300000000c0', 'hex'), // frame shorter than its header
        encodeMessage([{ flags: Flag.BEGIN_FRAGMENT, content: Buffer.alloc(24) }]), // a fragment
        Buffer.from('ffffff7f00c0', 'hex'), // a 2 GiB frame
      ]) {
        const r = await authenticated();
        r.send(garbage);
        await within(r.closed, 5_000, 'the malformed connection to close');
      }
      expect(await m.get('k')).toBe('before');
      await m.set('k', 'after');
      expect(await m.get('k')).toBe('after');
      expect(c.member(0).logMessages().some((l) => l.startsWith('client connection closed: fragmented client messages are not accepted'))).toBe(true);
    } finally {
      await client.shutdown();
    }
  });

  it('a poll whose client went away takes nothing: the next item goes to the next poller', async () => {
    const r = await authenticated();
    r.send(hzBytes(hz.queuePoll.encodeRequest!('gone-q', Long.fromNumber(30_000)) as never, 21));
    // The poll waits at the member (the queue is empty); the client goes.
    const waiting = async (): Promise<number> => (JSON.parse((await c.http(0, 'GET', '/hazelcast/rest/queues/gone-q/stats')).body) as { waitingPolls: number }).waitingPolls;
    await waitFor('the poll to wait at the queue', async () => (await waiting()) === 1);
    r.socket.destroy();
    await r.closed;
    // The member notices the client went and drops its poll.
    await waitFor('the dead client\'s poll to go', async () => (await waiting()) === 0);
    expect((await c.http(0, 'POST', '/hazelcast/rest/queues/gone-q', 'item', { contentType: 'text/plain' })).status).toBe(200);
    const polled = await c.http(0, 'GET', '/hazelcast/rest/queues/gone-q/5');
    expect([polled.status, polled.body]).toEqual([200, 'item']);
  });

  it('a request split across reads survives other connections reading in between (the shared read buffer)', async () => {
    // Client connections read into the listener's one shared buffer: the bytes a connection
    // keeps between two reads (half a request) must be its own copy, not a view that the next
    // read of another connection overwrites.
    const ser = hzSerializer();
    const key = (k: string) => hzData(ser.toData(k).toBuffer());
    const get = (k: string, corr: number) => hzBytes(hz.mapGet.encodeRequest!('shared-reads', key(k), Long.fromNumber(0)) as never, corr);
    const valueOf = (m: ClientMessage) => (hz.mapGet.decodeResponse!(hzRead(encodeMessage(m))) as { toBuffer(): Buffer } | null)?.toBuffer();
    for (const k of ['split-a', 'other-b']) {
      expect((await c.http(0, 'POST', `/hazelcast/rest/maps/shared-reads/${k}`, `value of ${k}`, { contentType: 'text/plain' })).status).toBe(200);
    }
    const a = await authenticated();
    const b = await authenticated();
    // What each key reads when its request comes whole (a REST value as clients see it).
    a.send(get('split-a', 98));
    b.send(get('other-b', 99));
    const values = { 'split-a': valueOf(await a.next()), 'other-b': valueOf(await b.next()) };
    expect(values['split-a']?.includes(Buffer.from('value of split-a'))).toBe(true);
    expect(values['other-b']?.includes(Buffer.from('value of other-b'))).toBe(true);
    const expected = (k: 'split-a' | 'other-b') => values[k]!;
    for (let round = 0; round < 3; round++) {
      const whole = get('split-a', 100 + round);
      // Mid-key: the member holds the request's start, key bytes included, until the rest comes.
      const cut = whole.length - 5;
      a.send(whole.subarray(0, cut));
      // Another connection's reads (many requests, so they fill the buffer past A's bytes).
      const burst = Array.from({ length: 40 }, (_, i) => get('other-b', 1000 + round * 100 + i));
      b.send(Buffer.concat(burst));
      for (let i = 0; i < burst.length; i++) expect(valueOf(await b.next())?.equals(expected('other-b'))).toBe(true);
      a.send(whole.subarray(cut));
      const answer = await a.next();
      expect(answer[0]!.content.readBigInt64LE(4)).toBe(BigInt(100 + round));
      expect(valueOf(answer)?.equals(expected('split-a'))).toBe(true);
    }
    a.socket.destroy();
    b.socket.destroy();
  });

  it('HTTP still works on the same port', async () => {
    const res = await c.http(0, 'GET', '/hazelcast/health/ready');
    expect(res.status).toBe(200);
  });
});
