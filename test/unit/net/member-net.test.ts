// MemberNet over real loopback sockets, without a Member: each node is a MemberNet behind a
// real Listener (which reads the first chunk and hands member connections over), with the
// member authentication built from a real config (createMemberAuth), the real clock, and
// logs captured. Handlers are registered by the test itself.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { createLogControl } from '../../../src/core/logger.js';
import { configFromObject } from '../../../src/config/index.js';
import { Listener } from '../../../src/net/listener.js';
import { MemberNet, splitAddress, type MemberAuth } from '../../../src/net/member-net.js';
import { FrameKind, FrameReader, encodeFrame, type Frame } from '../../../src/protocol/frame.js';
import type { StallBounds } from '../../../src/net/stall-detector.js';
import type { WireValue } from '../../../src/protocol/codec.js';
import { Msg } from '../../../src/protocol/messages.js';
import { MEMBER_PREAMBLE } from '../../../src/protocol/preamble.js';
import { createMemberAuth } from '../../../src/security/credentials.js';
import { LogCapture } from '../../support/logs.js';
import { waitFor, within } from '../../support/process.js';
import { sleep } from '../../support/wait.js';

interface Node {
  readonly net: MemberNet;
  readonly listener: Listener;
  readonly logs: LogCapture;
  readonly uuid: string;
  readonly address: string;
  readonly port: number;
}

const nodes: Node[] = [];
const rawSockets: net.Socket[] = [];

afterEach(async () => {
  for (const s of rawSockets.splice(0)) s.destroy();
  await Promise.all(
    nodes.splice(0).map(async (n) => {
      await n.net.stop();
      await n.listener.close(true);
    }),
  );
});

let nextId = 1;

/** A MemberNet behind a Listener on a free loopback port. `raw` is the config (YAML shape). */
async function startNode(raw: Record<string, unknown> = {}, opts: { auth?: MemberAuth; connectTimeoutMs?: number; stall?: StallBounds } = {}): Promise<Node> {
  const logs = new LogCapture();
  const logger = createLogControl({ level: 'FINE', destination: logs }).logger;
  const uuid = `uuid-${nextId++}`;
  let address = '127.0.0.1:0';
  const memberNet = new MemberNet({
    logger,
    clock: systemClock,
    auth: opts.auth ?? createMemberAuth(configFromObject(raw).config),
    local: () => ({ uuid, address }),
    connectTimeoutMs: opts.connectTimeoutMs ?? 2_000,
    version: '0.0.0-test',
    ...(opts.stall ? { stall: opts.stall } : {}),
  });
  const listener = new Listener({ host: '127.0.0.1', logger, http: undefined, member: memberNet });
  const port = await listener.listen({ port: 0, autoIncrement: false, portCount: 1 });
  address = `127.0.0.1:${port}`;
  const node: Node = { net: memberNet, listener, logs, uuid, address, port };
  nodes.push(node);
  return node;
}

/** The GridError a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<GridError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    return e as GridError;
  }
  throw new Error('expected a rejection, the promise resolved');
}


/** A plain socket to `port`; `closed` settles when the other side closes it. */
async function rawSocket(port: number): Promise<{ socket: net.Socket; closed: Promise<void>; received: () => Buffer }> {
  const socket = net.connect({ host: '127.0.0.1', port });
  rawSockets.push(socket);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed, received: () => Buffer.concat(chunks) };
}

/** An Auth frame; `partitionHash` null leaves the field off, as members before hash version 2 did. */
const authFrame = (clusterName: string, callId = 1, partitionHash: number | null = 2): Buffer =>
  encodeFrame(FrameKind.Request, Msg.Auth, callId, [clusterName, 'raw-uuid', '127.0.0.1:1', null, null, '0.0.0-test', ...(partitionHash === null ? [] : [partitionHash])]);

const SECURITY = (identity: { username: string; password: string } | undefined): Record<string, unknown> => ({
  security: {
    enabled: true,
    realms: [
      {
        name: 'members',
        authentication: { simple: { users: [{ username: 'member', password: 'm-secret', roles: ['member'] }] } },
        ...(identity ? { identity: { 'username-password': identity } } : {}),
      },
    ],
    'member-authentication': { realm: 'members' },
  },
});

describe('MemberNet: requests and answers', () => {
  it('answers a request from a synchronous handler, and tells the handler who asked', async () => {
    const a = await startNode();
    const b = await startNode();
    const seen: (string | undefined)[] = [];
    b.net.handle(Msg.Operation, (payload, from) => {
      seen.push(from.peer?.uuid, from.peer?.address);
      return ['echo', payload];
    });
    expect(await a.net.request(b.address, Msg.Operation, ['x', 1, null], 2_000)).toEqual(['echo', ['x', 1, null]]);
    expect(seen).toEqual([a.uuid, a.address]);
    // The dialled connection knows its peer from the Auth answer.
    const conn = await a.net.existing(b.address);
    expect(conn?.peer).toEqual({ uuid: b.uuid, address: b.address });
    expect(conn?.outbound).toBe(true);
  });

  it('answers a request from an asynchronous handler', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, async (payload) => {
      await sleep(20);
      return { got: payload };
    });
    expect(await a.net.request(b.address, Msg.Operation, 'hello', 2_000)).toEqual({ got: 'hello' });
  });

  it('correlates answers that come back out of order', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, async (payload) => {
      await sleep(payload as number);
      return payload;
    });
    const delays = [60, 10, 40, 0, 30, 20, 50];
    const answers = await Promise.all(delays.map((d) => a.net.request(b.address, Msg.Operation, d, 2_000)));
    expect(answers).toEqual(delays);
  });

  it('carries every kind of wire value both ways', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, (payload) => payload);
    const value: WireValue = [null, true, false, 0, -1, 2 ** 40, 1.5, '', 'héllo ✓', Buffer.from([0, 255]), { k: ['v', { n: null }] }, []];
    const back = await a.net.request(b.address, Msg.Operation, value, 2_000);
    expect(back).toEqual(value);
  });

  it('turns a GridError thrown by a handler into the same code and message at the caller', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, () => {
      throw new GridError('CONFLICT', 'not the master');
    });
    b.net.handle(Msg.Backup, async () => {
      await sleep(5);
      throw new GridError('PARTITION_MIGRATING', 'partition 7 is migrating');
    });
    const e1 = await rejection(a.net.request(b.address, Msg.Operation, null, 2_000));
    expect([e1.code, e1.message, e1.retryable]).toEqual(['CONFLICT', 'not the master', false]);
    const e2 = await rejection(a.net.request(b.address, Msg.Backup, null, 2_000));
    expect([e2.code, e2.message, e2.retryable]).toEqual(['PARTITION_MIGRATING', 'partition 7 is migrating', true]);
    // The connection stays usable after error answers.
    b.net.handle(Msg.Join, () => 'ok');
    expect(await a.net.request(b.address, Msg.Join, null, 2_000)).toBe('ok');
    expect(a.net.connectionCount()).toBe(1);
  });

  it('answers an unexpected exception as INTERNAL with its message, and logs it on the answering side', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, () => {
      throw new TypeError('boom');
    });
    const e = await rejection(a.net.request(b.address, Msg.Operation, null, 2_000));
    expect([e.code, e.message]).toEqual(['INTERNAL', 'boom']);
    expect(b.logs.messages()).toContain('member request failed unexpectedly: boom');
  });

  it('answers a message type without a handler with BAD_REQUEST naming it', async () => {
    const a = await startNode();
    const b = await startNode();
    const e = await rejection(a.net.request(b.address, 999, null, 2_000));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toBe('unknown member message #999');
    const e2 = await rejection(a.net.request(b.address, Msg.Migrate, null, 2_000));
    expect([e2.code, e2.message]).toEqual(['BAD_REQUEST', 'unknown member message Migrate']);
  });

  it('fails a request to an address where nobody listens with MEMBER_UNREACHABLE (retryable)', async () => {
    const a = await startNode();
    const gone = await startNode();
    const address = gone.address;
    await gone.net.stop();
    await gone.listener.close(true);
    const e = await rejection(a.net.request(address, Msg.Operation, null, 2_000));
    expect(e.code).toBe('MEMBER_UNREACHABLE');
    expect(e.retryable).toBe(true);
    expect(e.message).toContain(address);
    expect(a.net.existing(address)).toBeUndefined();
    // A one-way to it is dropped without a throw.
    expect(() => a.net.oneWay(address, Msg.Heartbeat, null)).not.toThrow();
  });
});

describe('MemberNet: one-way messages and connections', () => {
  it('delivers 1000 one-way messages in the order they were sent', async () => {
    const a = await startNode();
    const b = await startNode();
    const got: number[] = [];
    const from = new Set<string | undefined>();
    b.net.handleOneWay(Msg.Heartbeat, (payload, conn) => {
      got.push(payload as number);
      from.add(conn.peer?.uuid);
    });
    // Sent before the connection exists: queued behind the dial, still in order.
    for (let i = 0; i < 1000; i++) a.net.oneWay(b.address, Msg.Heartbeat, i);
    await waitFor('1000 one-way messages', () => got.length >= 1000, 5_000);
    expect(got).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect([...from]).toEqual([a.uuid]);
    expect(a.net.connectionCount()).toBe(1);
  });

  it('keeps one-ways and requests in one order on the one connection', async () => {
    const a = await startNode();
    const b = await startNode();
    const events: string[] = [];
    b.net.handleOneWay(Msg.Heartbeat, (p) => events.push(`one-way ${String(p)}`));
    b.net.handle(Msg.Operation, (p) => {
      events.push(`request ${String(p)}`);
      return null;
    });
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      if (i % 3 === 0) calls.push(a.net.request(b.address, Msg.Operation, i, 2_000));
      else a.net.oneWay(b.address, Msg.Heartbeat, i);
    }
    await Promise.all(calls);
    await waitFor('20 messages', () => events.length >= 20, 2_000);
    expect(events).toEqual(Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? `request ${i}` : `one-way ${i}`)));
  });

  it('ignores a one-way without a handler, and survives a one-way handler that throws', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handleOneWay(Msg.PollCancel, () => {
      throw new Error('handler broke');
    });
    b.net.handle(Msg.Operation, () => 'still here');
    a.net.oneWay(b.address, 999, 'nobody handles this');
    a.net.oneWay(b.address, Msg.PollCancel, ['p1']);
    expect(await a.net.request(b.address, Msg.Operation, null, 2_000)).toBe('still here');
    expect(b.logs.messages()).toContain('member message failed: handler broke');
    expect(b.logs.messages()).toContain('unknown one-way member message ignored');
  });

  it('sends every request to a peer over one outbound connection; answers go back on it', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, async (p) => {
      await sleep(1);
      return p;
    });
    // Concurrent requests before any connection exists share one dial.
    const first = await Promise.all(Array.from({ length: 50 }, (_, i) => a.net.request(b.address, Msg.Operation, i, 2_000)));
    expect(first).toEqual(Array.from({ length: 50 }, (_, i) => i));
    for (let i = 0; i < 50; i++) await a.net.request(b.address, Msg.Operation, i, 2_000);
    expect(a.net.connectionCount()).toBe(1);
    expect(b.net.connectionCount()).toBe(1);
    expect(b.listener.counts.member).toBe(1);
    // b answered on a's connection: it never dialled a.
    expect(b.net.existing(a.address)).toBeUndefined();
    expect(a.net.connect(b.address)).toBe(a.net.existing(b.address));

    // Once b sends to a, the pair has two connections, one per direction.
    a.net.handle(Msg.Operation, (p) => p);
    expect(await b.net.request(a.address, Msg.Operation, 'back', 2_000)).toBe('back');
    expect(a.net.connectionCount()).toBe(2);
    expect(b.net.connectionCount()).toBe(2);
    expect(a.listener.counts.member).toBe(1);
    expect(b.listener.counts.member).toBe(1);
  });

  it('dials again after the outbound connection closed', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, (p) => p);
    expect(await a.net.request(b.address, Msg.Operation, 1, 2_000)).toBe(1);
    const first = await a.net.existing(b.address);
    first!.close();
    await waitFor('the outbound connection forgotten', () => a.net.existing(b.address) === undefined, 2_000);
    expect(await a.net.request(b.address, Msg.Operation, 2, 2_000)).toBe(2);
    const second = await a.net.existing(b.address);
    expect(second).not.toBe(first);
    expect(second?.closed).toBe(false);
    await waitFor('one connection on b', () => b.net.connectionCount() === 1, 2_000);
  });
});

describe('MemberNet: authentication', () => {
  it('refuses a member of another cluster with CONFLICT; the acceptor logs that the cluster name differs', async () => {
    const a = await startNode({ 'cluster-name': 'alpha' });
    const b = await startNode({ 'cluster-name': 'beta' });
    b.net.handle(Msg.Operation, () => 'must not run');
    const e = await rejection(a.net.request(b.address, Msg.Operation, null, 2_000));
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toBe(`its cluster name "alpha" differs from this cluster's "beta"`);
    const refusal = b.logs.lines.find((l) => String(l.msg).startsWith('refused member'));
    expect(refusal?.msg).toBe(`refused member ${a.address}: its cluster name "alpha" differs from this cluster's "beta"`);
    expect(refusal?.level).toBe('WARNING');
    expect(refusal?.uuid).toBe(a.uuid);
    // Nothing stays open or remembered on either side.
    expect(a.net.existing(b.address)).toBeUndefined();
    await waitFor('the refused connection closed on both sides', () => a.net.connectionCount() === 0 && b.net.connectionCount() === 0, 2_000);
    // Refused again on the next try (a new dial, not a cached failure that never retries).
    expect((await rejection(a.net.request(b.address, Msg.Operation, null, 2_000))).code).toBe('CONFLICT');
    expect(b.logs.messages().filter((m) => m.startsWith('refused member'))).toHaveLength(2);
  });

  it('with security on, accepts a member presenting a user of the member-authentication realm', async () => {
    const a = await startNode(SECURITY({ username: 'member', password: 'm-secret' }));
    const b = await startNode(SECURITY({ username: 'member', password: 'm-secret' }));
    b.net.handle(Msg.Operation, () => 'in');
    expect(await a.net.request(b.address, Msg.Operation, null, 2_000)).toBe('in');
  });

  it('with security on, refuses a wrong password with FORBIDDEN and logs the refusal without the password', async () => {
    const a = await startNode(SECURITY({ username: 'member', password: 'wrong-pw' }));
    const b = await startNode(SECURITY({ username: 'member', password: 'm-secret' }));
    b.net.handle(Msg.Operation, () => 'must not run');
    const e = await rejection(a.net.request(b.address, Msg.Operation, null, 2_000));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toBe('wrong member credentials for user "member"');
    expect(b.logs.messages()).toContain(`refused member ${a.address}: wrong member credentials for user "member"`);
    const allLogs = JSON.stringify([...a.logs.lines, ...b.logs.lines]);
    expect(allLogs).not.toContain('wrong-pw');
    expect(allLogs).not.toContain('m-secret');
  });

  it('with security on, refuses an unknown user and a member that presents no identity', async () => {
    const b = await startNode(SECURITY({ username: 'member', password: 'm-secret' }));
    b.net.handle(Msg.Operation, () => 'must not run');
    const stranger = await startNode(SECURITY({ username: 'someone', password: 'm-secret' }));
    const e1 = await rejection(stranger.net.request(b.address, Msg.Operation, null, 2_000));
    expect([e1.code, e1.message]).toEqual(['FORBIDDEN', 'wrong member credentials for user "someone"']);
    // Security off on the caller: it presents nothing.
    const open = await startNode({});
    const e2 = await rejection(open.net.request(b.address, Msg.Operation, null, 2_000));
    expect([e2.code, e2.message]).toEqual(['FORBIDDEN', 'it presented no identity (security is enabled)']);
    // Security on, but its realm has no identity.
    const noIdentity = await startNode(SECURITY(undefined));
    const e3 = await rejection(noIdentity.net.request(b.address, Msg.Operation, null, 2_000));
    expect(e3.code).toBe('FORBIDDEN');
    expect(b.logs.messages().filter((m) => m.startsWith('refused member'))).toEqual([
      `refused member ${stranger.address}: wrong member credentials for user "someone"`,
      `refused member ${open.address}: it presented no identity (security is enabled)`,
      `refused member ${noIdentity.address}: it presented no identity (security is enabled)`,
    ]);
  });

  it('uses the verify of the MemberAuth it was given (any refusal code travels to the caller)', async () => {
    const calls: unknown[][] = [];
    const b = await startNode(
      {},
      {
        auth: {
          clusterName: 'dev',
          identity: undefined,
          verify: (clusterName, username, password) => {
            calls.push([clusterName, username, password]);
            return { code: 'FORBIDDEN', reason: 'nobody gets in' };
          },
        },
      },
    );
    const a = await startNode({}, { auth: { clusterName: 'dev', identity: { username: 'u', password: 'p' }, verify: () => undefined } });
    const e = await rejection(a.net.request(b.address, Msg.Operation, null, 2_000));
    expect([e.code, e.message]).toEqual(['FORBIDDEN', 'nobody gets in']);
    expect(calls).toEqual([['dev', 'u', 'p']]);
  });

  it('closes a connection whose first frame is a request other than Auth, without answering it', async () => {
    const b = await startNode();
    let ran = false;
    b.net.handle(Msg.Discover, () => {
      ran = true;
      return null;
    });
    const raw = await rawSocket(b.port);
    raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, encodeFrame(FrameKind.Request, Msg.Discover, 1, ['u', '127.0.0.1:1'])]));
    await within(raw.closed, 2_000, 'the connection closed');
    expect(ran).toBe(false);
    expect(raw.received().length).toBe(0);
    expect(b.logs.messages()).toContain('member connection closed: Discover before authentication');
    await waitFor('no member connection left', () => b.net.connectionCount() === 0 && b.listener.counts.member === 0, 2_000);
  });

  it('closes a connection whose first frame is a one-way message', async () => {
    const b = await startNode();
    let ran = false;
    b.net.handleOneWay(Msg.Heartbeat, () => {
      ran = true;
    });
    const raw = await rawSocket(b.port);
    raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, encodeFrame(FrameKind.OneWay, Msg.Heartbeat, 0, ['u', 1])]));
    await within(raw.closed, 2_000, 'the connection closed');
    expect(ran).toBe(false);
    expect(b.logs.messages()).toContain('member connection closed: Heartbeat before authentication');
  });

  it('closes a connection whose Auth is malformed, answering BAD_REQUEST first', async () => {
    const b = await startNode();
    const raw = await rawSocket(b.port);
    raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, encodeFrame(FrameKind.Request, Msg.Auth, 7, ['dev', 42])]));
    await within(raw.closed, 2_000, 'the connection closed');
    const expected = encodeFrame(FrameKind.ErrorResponse, 0, 7, ['BAD_REQUEST', 'malformed member message: uuid is number']);
    expect(raw.received()).toEqual(expected);
  });

  it('refuses a member of an older Grid (partition hash version 1: no version in its Auth) with CONFLICT naming both versions', async () => {
    const b = await startNode();
    b.net.handle(Msg.Operation, () => 'must not run');
    for (const [hash, shown] of [[null, "1 (Grid before Hazelcast's partition hash)"], [1, "1 (Grid before Hazelcast's partition hash)"], [3, '3']] as const) {
      const raw = await rawSocket(b.port);
      raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, authFrame('dev', 1, hash), encodeFrame(FrameKind.Request, Msg.Operation, 2, 'x')]));
      const why =
        `member 127.0.0.1:1 places keys by partition hash version ${shown}, this member by version 2 (Hazelcast's partition hash): ` +
        'a key would be looked for in the wrong partition; members of different partition hash versions never form one cluster';
      const expected = encodeFrame(FrameKind.ErrorResponse, 0, 1, ['CONFLICT', why]);
      await waitFor('the refusal', () => raw.received().length >= expected.length, 2_000);
      // The refusal only: the operation after the Auth is never run.
      expect(raw.received()).toEqual(expected);
      expect(b.logs.messages()).toContain(`refused member 127.0.0.1:1: ${why}`);
    }
  });

  it('refuses to join a member of an older Grid that accepts it (its Auth answer carries no partition hash version)', async () => {
    const a = await startNode();
    // An older member: it accepts any Auth and answers [uuid, address] only.
    const server = net.createServer((s) => {
      const reader = new FrameReader({ expectPreamble: true });
      s.on('data', (c: Buffer) => {
        for (const f of reader.push(c)) if (f.type === Msg.Auth) s.write(encodeFrame(FrameKind.Response, 0, f.callId, ['old-uuid', `127.0.0.1:${port}`]));
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const e = await rejection(a.net.request(`127.0.0.1:${port}`, Msg.Operation, null, 2_000));
      expect(e.code).toBe('CONFLICT');
      expect(e.message).toBe(
        `member 127.0.0.1:${port} places keys by partition hash version 1 (Grid before Hazelcast's partition hash), this member by version 2 (Hazelcast's partition hash): ` +
          'a key would be looked for in the wrong partition; members of different partition hash versions never form one cluster',
      );
      expect(a.net.existing(`127.0.0.1:${port}`)).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a raw client that authenticates properly gets the answer [uuid, address, partition hash version] and may then send requests', async () => {
    const b = await startNode();
    b.net.handle(Msg.Operation, (p) => ['seen', p]);
    const raw = await rawSocket(b.port);
    raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, authFrame('dev', 1), encodeFrame(FrameKind.Request, Msg.Operation, 2, 'x')]));
    const expected = Buffer.concat([
      encodeFrame(FrameKind.Response, 0, 1, [b.uuid, b.address, 2]),
      encodeFrame(FrameKind.Response, 0, 2, ['seen', 'x']),
    ]);
    await waitFor('both answers', () => raw.received().length >= expected.length, 2_000);
    expect(raw.received()).toEqual(expected);
  });
});

describe('MemberNet: timeouts, closed peers, bad bytes, stop', () => {
  it('fails a request that gets no answer in time with TIMEOUT; a late answer is dropped', async () => {
    const a = await startNode();
    const b = await startNode();
    let answerLate: ((v: WireValue) => void) | undefined;
    b.net.handle(Msg.Operation, () => new Promise<WireValue>((resolve) => (answerLate = resolve)));
    b.net.handle(Msg.Join, () => 'prompt');
    const started = Date.now();
    const e = await rejection(a.net.request(b.address, Msg.Operation, null, 150));
    const took = Date.now() - started;
    expect(e.code).toBe('TIMEOUT');
    expect(e.retryable).toBe(true);
    expect(e.message).toBe(`Operation to ${b.address} got no answer in time`);
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(1_500); // timeouts are checked every 100 ms
    // The answer that comes after the timeout is ignored; the connection keeps working.
    answerLate!('too late');
    expect(await a.net.request(b.address, Msg.Join, null, 2_000)).toBe('prompt');
    expect(a.net.connectionCount()).toBe(1);
  });

  it('times out only the calls that are due', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, async (p) => {
      await sleep(p as number);
      return p;
    });
    const fast = a.net.request(b.address, Msg.Operation, 10, 1_000);
    const slow = rejection(a.net.request(b.address, Msg.Operation, 2_000, 200));
    expect(await fast).toBe(10);
    expect((await slow).code).toBe('TIMEOUT');
  });

  it('fails pending calls with MEMBER_UNREACHABLE when the peer closes, and reports the closed outbound connection', async () => {
    const a = await startNode();
    const b = await startNode();
    let arrived = 0;
    b.net.handle(Msg.Operation, () => {
      arrived++;
      return new Promise<WireValue>(() => undefined); // never answers
    });
    const closedAddresses: string[] = [];
    a.net.onOutboundClosed((address) => closedAddresses.push(address));
    const pending = [1, 2, 3].map((i) => rejection(a.net.request(b.address, Msg.Operation, i, 10_000)));
    await waitFor('the connection up', () => b.net.connectionCount() === 1, 2_000);
    await waitFor('the three requests to reach b', () => arrived === 3, 2_000);
    await b.net.stop();
    const errors = await within(Promise.all(pending), 2_000, 'the pending calls to fail');
    for (const e of errors) {
      expect(e.code).toBe('MEMBER_UNREACHABLE');
      expect(e.retryable).toBe(true);
      expect(e.message).toBe(`member ${b.address} is unreachable: connection closed`);
    }
    await waitFor('onOutboundClosed', () => closedAddresses.length > 0, 2_000);
    expect(closedAddresses).toEqual([b.address]);
    expect(a.net.existing(b.address)).toBeUndefined();
    expect(a.net.connectionCount()).toBe(0);
  });

  it('fails a request written on a connection that has closed at once, without waiting for the timeout', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, () => 1);
    await a.net.request(b.address, Msg.Operation, null, 2_000);
    const conn = (await a.net.existing(b.address))!;
    conn.close();
    await waitFor('closed', () => conn.closed, 2_000);
    const e = await rejection(conn.request(Msg.Operation, null, 60_000));
    expect(e.code).toBe('MEMBER_UNREACHABLE');
    let called = false;
    conn.onClose(() => (called = true));
    expect(called).toBe(true); // a close listener added after the close runs at once
  });

  it('closes a connection that sends garbage after the preamble, logs it, and keeps serving others', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, (p) => p);
    const garbage: [string, Buffer][] = [
      ['a length shorter than the frame header', Buffer.from([0, 0, 0, 1, 9, 9, 9, 9])],
      ['a frame of an unknown kind', Buffer.from([0, 0, 0, 8, 0x77, 0, 1, 0, 0, 0, 1, 0])],
      ['a payload with an unknown tag', Buffer.from([0, 0, 0, 8, 1, 0, 1, 0, 0, 0, 1, 0xee])],
      ['a huge length', Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3])],
      // A request frame of a sane length whose payload is noise (the value cannot end where the frame does).
      ['a payload of noise', Buffer.from([0, 0, 0, 60, 1, 0, 7, 0, 0, 0, 1, ...Array.from({ length: 53 }, (_, i) => (i * 131 + 7) & 0xff)])],
    ];
    for (const [what, bytes] of garbage) {
      const raw = await rawSocket(b.port);
      raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, bytes]));
      await within(raw.closed, 2_000, `the connection closed after ${what}`);
    }
    // After an Auth too: garbage on an authenticated connection closes it as well.
    const raw = await rawSocket(b.port);
    raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, authFrame('dev'), Buffer.from([0, 0, 0, 2, 1, 1])]));
    await within(raw.closed, 2_000, 'the authenticated connection closed after garbage');
    const closedLines = b.logs.lines.filter((l) => String(l.msg).startsWith('member connection closed: '));
    expect(closedLines.length).toBe(garbage.length + 1);
    for (const l of closedLines) expect(l.level).toBe('WARNING');
    // The member still serves real members.
    expect(await a.net.request(b.address, Msg.Operation, 'fine', 2_000)).toBe('fine');
    await waitFor('only the real connection left', () => b.net.connectionCount() === 1, 2_000);
  });

  it('closes a connection with a wrong preamble (another protocol version, or not Grid at all)', async () => {
    const b = await startNode();
    const versions: [Buffer, string][] = [
      [Buffer.from([0x00, 0x47, 0x52, 0x44, 0x02]), 'member protocol version 2 is not supported (this member speaks 1)'],
      [Buffer.from([0x00, 0x48, 0x5a, 0x43, 0x01]), 'not a Grid member connection (bad preamble)'],
    ];
    for (const [preamble, message] of versions) {
      const raw = await rawSocket(b.port);
      raw.socket.write(Buffer.concat([preamble, authFrame('dev')]));
      await within(raw.closed, 2_000, 'the connection closed');
      expect(raw.received().length).toBe(0);
      expect(b.logs.messages()).toContain(`member connection closed: ${message}`);
    }
  });

  it('survives a peer that sends its bytes one at a time', async () => {
    const b = await startNode();
    b.net.handle(Msg.Operation, (p) => p);
    const raw = await rawSocket(b.port);
    raw.socket.setNoDelay(true);
    const bytes = Buffer.concat([MEMBER_PREAMBLE, authFrame('dev', 1), encodeFrame(FrameKind.Request, Msg.Operation, 2, 'slow')]);
    for (const byte of bytes) {
      raw.socket.write(Buffer.from([byte]));
      await new Promise<void>((r) => setImmediate(r));
    }
    const expected = Buffer.concat([encodeFrame(FrameKind.Response, 0, 1, [b.uuid, b.address, 2]), encodeFrame(FrameKind.Response, 0, 2, 'slow')]);
    await waitFor('both answers', () => raw.received().length >= expected.length, 3_000);
    expect(raw.received()).toEqual(expected);
  });

  it('stop() closes every connection in both directions, fails pending calls and refuses new work', async () => {
    const a = await startNode();
    const b = await startNode();
    const c = await startNode();
    for (const n of [a, b, c]) n.net.handle(Msg.Operation, (p) => p);
    let joins = 0;
    b.net.handle(Msg.Join, () => {
      joins++;
      return new Promise<WireValue>(() => undefined); // never answers
    });
    await a.net.request(b.address, Msg.Operation, 1, 2_000);
    await b.net.request(a.address, Msg.Operation, 1, 2_000);
    await c.net.request(a.address, Msg.Operation, 1, 2_000);
    expect(a.net.connectionCount()).toBe(3);
    const pending = rejection(a.net.request(b.address, Msg.Join, null, 10_000));
    await waitFor('the pending call to reach b', () => joins === 1, 2_000);

    await a.net.stop();
    expect((await within(pending, 2_000, 'the pending call to fail')).code).toBe('MEMBER_UNREACHABLE');
    await waitFor('every connection of a closed', () => a.net.connectionCount() === 0, 2_000);
    await waitFor('the peers see their connections to a close', () => b.net.connectionCount() === 0 && c.net.connectionCount() === 0, 2_000);
    const e = await rejection(a.net.request(b.address, Msg.Operation, 1, 2_000));
    expect([e.code, e.message]).toEqual(['MEMBER_UNREACHABLE', `member ${b.address} is unreachable: this member is stopping`]);
    expect(() => a.net.oneWay(b.address, Msg.Heartbeat, null)).not.toThrow();
    // A connection that still reaches a's port is closed at once.
    const raw = await rawSocket(a.port);
    raw.socket.write(Buffer.concat([MEMBER_PREAMBLE, authFrame('dev')]));
    await within(raw.closed, 2_000, 'the connection to a stopped MemberNet closed');
    expect(raw.received().length).toBe(0);
    expect(a.net.connectionCount()).toBe(0);
    // b and c still talk to each other.
    expect(await b.net.request(c.address, Msg.Operation, 'ok', 2_000)).toBe('ok');
  });

  it('stop() does not report the outbound connections it closes itself', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, (p) => p);
    const closed: string[] = [];
    a.net.onOutboundClosed((address) => closed.push(address));
    await a.net.request(b.address, Msg.Operation, 1, 2_000);
    await a.net.stop();
    await waitFor('closed', () => a.net.connectionCount() === 0, 2_000);
    await sleep(20); // a negative: time for a report that must not come
    expect(closed).toEqual([]);
  });
});

/**
 * A peer that authenticates every connection and then never answers anything, as a member
 * behind a link that drops its packets would look from user space (the frames it gets are kept).
 */
async function silentPeer(): Promise<{ address: string; connections: net.Socket[]; frames: Frame[][]; close: () => Promise<void> }> {
  const connections: net.Socket[] = [];
  const frames: Frame[][] = [];
  const server = net.createServer((socket) => {
    const i = connections.push(socket) - 1;
    frames.push([]);
    const reader = new FrameReader({ expectPreamble: true });
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) {
        frames[i]!.push(f);
        if (f.type === Msg.Auth) socket.write(encodeFrame(FrameKind.Response, 0, f.callId, ['silent-uuid', address, 2]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    address,
    connections,
    frames,
    close: () => {
      for (const s of connections) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('MemberNet: removed members and stalled connections', () => {
  it('closeMember closes the connections to and from that member; later messages go over new connections', async () => {
    const a = await startNode();
    const b = await startNode();
    for (const n of [a, b]) n.net.handle(Msg.Operation, (p) => p);
    let holds = 0;
    b.net.handle(Msg.Join, () => {
      holds++;
      return new Promise<WireValue>(() => undefined); // never answers
    });
    await a.net.request(b.address, Msg.Operation, 1, 2_000);
    await b.net.request(a.address, Msg.Operation, 1, 2_000);
    expect(a.net.connectionCount()).toBe(2);
    const first = await a.net.existing(b.address);
    const pending = rejection(a.net.request(b.address, Msg.Join, null, 10_000));
    await waitFor('the pending call to reach b', () => holds === 1, 2_000);

    // Another member at the same address (b replaced by a restart) is not b: nothing closes.
    a.net.closeMember('some-other-uuid', b.address);
    expect(first!.closed).toBe(false);

    a.net.closeMember(b.uuid, b.address);
    // The connection a dialled is closed at once: its pending call fails now, not at its timeout.
    expect(first!.closed).toBe(true);
    expect(a.net.existing(b.address)).toBeUndefined();
    expect((await within(pending, 500, 'the pending call to fail')).code).toBe('MEMBER_UNREACHABLE');
    // The one b dialled closes too, a moment later.
    await waitFor('every connection of a closed', () => a.net.connectionCount() === 0, 3_000);
    expect(a.logs.messages().some((l) => l.includes(`closed 2 connection(s) of removed member ${b.address}`))).toBe(true);

    // Both directions dial anew.
    expect(await a.net.request(b.address, Msg.Operation, 2, 2_000)).toBe(2);
    const second = await a.net.existing(b.address);
    expect(second).not.toBe(first);
    expect(await b.net.request(a.address, Msg.Operation, 3, 2_000)).toBe(3);
    // Each side serves one (new) inbound connection: the old ones are gone.
    await waitFor('the old connections gone on both sides', () => a.net.connectionCount() === 2 && b.net.connectionCount() === 2, 2_000);
    expect([a.listener.counts.member, b.listener.counts.member]).toEqual([1, 1]);
  });

  it('closeMember during a dial closes that connection once it turns out to reach the removed member', async () => {
    const a = await startNode();
    const b = await startNode();
    b.net.handle(Msg.Operation, (p) => p);
    const dialling = a.net.connect(b.address);
    a.net.closeMember(b.uuid, b.address);
    const conn = await dialling;
    await waitFor('the dialled connection closed', () => conn.closed, 2_000);
    await waitFor('forgotten', () => a.net.existing(b.address) === undefined, 2_000);
    expect(await a.net.request(b.address, Msg.Operation, 'fresh', 2_000)).toBe('fresh');
    expect((await a.net.existing(b.address))?.closed).toBe(false);
  });

  it('probes a connection that is written to and hears nothing, and sends on a new one once it stalls', async () => {
    const peer = await silentPeer();
    try {
      const a = await startNode({}, { stall: { probeAfterMs: 200, stallAfterMs: 500 } });
      const reported: string[] = [];
      a.net.onOutboundClosed((address) => reported.push(address));
      const beats = setInterval(() => a.net.oneWay(peer.address, Msg.Heartbeat, ['a', 1]), 50);
      try {
        await waitFor('a second connection from a', () => peer.connections.length >= 2, 3_000);
      } finally {
        clearInterval(beats);
      }
      const first = peer.frames[0]!;
      // Auth, heartbeats, then one Ping (a probe is sent once per silence), then nothing: later beats go to the new connection.
      expect(first[0]?.type).toBe(Msg.Auth);
      expect(first.filter((f) => f.type === Msg.Ping && f.kind === FrameKind.Request).length).toBe(1);
      expect(first.filter((f) => f.type === Msg.Heartbeat).length).toBeGreaterThan(3);
      await waitFor('heartbeats on the new connection', () => (peer.frames[1] ?? []).some((f) => f.type === Msg.Heartbeat), 2_000);
      // The stalled connection is closed once its probe timed out (nothing else was pending on it).
      await waitFor('the stalled connection closed', () => peer.connections[0]!.destroyed || peer.connections[0]!.readableEnded, 3_000);
      // Not reported as a lost connection: that would set the connection monitor on the peer,
      // which may only be paused; the heartbeat deadline judges it.
      expect(reported).toEqual([]);
      const warn = a.logs.messages().find((l) => l.includes('stalled'));
      expect(warn).toMatch(new RegExp(`member connection to ${peer.address} stalled: \\d+ bytes written over \\d+ ms and nothing came back`));
    } finally {
      await peer.close();
    }
  });

  it('keeps a connection that carries one-way messages only while the peer answers its probes', async () => {
    const a = await startNode({}, { stall: { probeAfterMs: 100, stallAfterMs: 300 } });
    const b = await startNode();
    let beats = 0;
    b.net.handleOneWay(Msg.Heartbeat, () => beats++);
    const timer = setInterval(() => a.net.oneWay(b.address, Msg.Heartbeat, ['a', 1]), 30);
    try {
      await waitFor('40 heartbeats over more than three stall bounds', () => beats >= 40, 5_000);
    } finally {
      clearInterval(timer);
    }
    expect(b.listener.counts.member).toBe(1);
    expect(a.logs.messages().filter((l) => l.includes('stalled'))).toEqual([]);
  });

  it('a request that has to dial times out at its own timeout, not at the connect timeout (a peer that never answers Auth)', async () => {
    const mute = net.createServer((socket) => socket.on('error', () => undefined)); // accepts, reads, never answers
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    try {
      const address = `127.0.0.1:${(mute.address() as net.AddressInfo).port}`;
      const a = await startNode({}, { connectTimeoutMs: 5_000 });
      const t0 = performance.now();
      const e = await rejection(a.net.request(address, Msg.Operation, 1, 300));
      const ms = performance.now() - t0;
      expect([e.code, e.message]).toEqual(['TIMEOUT', `Operation to ${address} got no answer in time (still connecting)`]);
      expect(ms).toBeGreaterThanOrEqual(290);
      expect(ms).toBeLessThan(2_000);
    } finally {
      mute.close();
    }
  });

  it('a connection of a MemberNet without stall bounds is never probed', async () => {
    const peer = await silentPeer();
    try {
      const a = await startNode();
      const timer = setInterval(() => a.net.oneWay(peer.address, Msg.Heartbeat, ['a', 1]), 20);
      try {
        await waitFor('25 heartbeats at the peer', () => (peer.frames[0] ?? []).filter((f) => f.type === Msg.Heartbeat).length >= 25, 3_000);
      } finally {
        clearInterval(timer);
      }
      expect(peer.connections.length).toBe(1);
      expect(peer.frames[0]!.some((f) => f.type === Msg.Ping)).toBe(false);
    } finally {
      await peer.close();
    }
  });
});

describe('splitAddress', () => {
  it('splits host:port and [ipv6]:port, and refuses anything else', () => {
    expect(splitAddress('127.0.0.1:5701')).toEqual({ host: '127.0.0.1', port: 5701 });
    expect(splitAddress('my-host:1')).toEqual({ host: 'my-host', port: 1 });
    expect(splitAddress('[::1]:5702')).toEqual({ host: '::1', port: 5702 });
    for (const bad of ['127.0.0.1', '::1:5701', 'host:', ':5701', 'host:port', '']) {
      expect(() => splitAddress(bad), bad).toThrow(GridError);
    }
  });
});
