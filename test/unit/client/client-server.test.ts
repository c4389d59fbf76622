// The client protocol's shell with a manual clock over real loopback sockets: the views are
// pushed again when their versions change, and a connection silent past the heartbeat timeout
// is closed (a pinging one is not).

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientServer } from '../../../src/client/client-server.js';
import type { ClientDeps } from '../../../src/client/client-deps.js';
import { MessageId } from '../../../src/client/message-ids.js';
import { encodeMessage, Flag, FrameReader, type ClientMessage } from '../../../src/client/frame.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { CredentialChecker } from '../../../src/security/credentials.js';
import { captureLogs } from '../core/fakes.js';
import { CAPTURED_AUTH } from './vectors.js';
import { waitFor, within } from '../../support/process.js';

const LOCAL = { uuid: 'b079e8bf-f481-48b0-a39f-619eb432e1ef', host: '127.0.0.1', port: 5701, liteMember: false, version: '5.7.0' };

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

const SECURITY_OFF: CredentialChecker = { securityEnabled: false, userCount: 0, check: () => false };

async function setup(silenceMs = 60_000, credentials = SECURITY_OFF) {
  const clock = new ManualClock();
  const logs = captureLogs('ALL');
  const view = { members: 1, partitions: 1 };
  const deps: Omit<ClientDeps, 'onClosed' | 'firstRefusalFrom'> = {
    clusterName: 'dev',
    partitionCount: 271,
    clusterId: '11111111-2222-5333-8444-555555555555',
    localUuid: () => LOCAL.uuid,
    localMember: () => LOCAL,
    members: () => [LOCAL],
    memberListVersion: () => view.members,
    partitionTableVersion: () => view.partitions,
    partitionOwners: () => Array.from({ length: 271 }, () => LOCAL.uuid),
    maps: undefined as unknown as ClientDeps['maps'],
    queues: undefined as unknown as ClientDeps['queues'],
    credentials,
    cp: undefined as unknown as ClientDeps['cp'],
    events: undefined as unknown as ClientDeps['events'],
  };
  const clients = new ClientServer(deps, clock, logs.control.logger, silenceMs);
  const server = net.createServer((s) => s.once('data', (head: Buffer) => clients.accept(s, head)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    clients.stop();
    server.close();
  });
  const port = (server.address() as net.AddressInfo).port;
  return { clock, view, clients, port, logs };
}

class Conn {
  readonly socket: net.Socket;
  private readonly reader = new FrameReader(undefined, 13);
  private readonly got: ClientMessage[] = [];
  private wake: (() => void) | undefined;
  readonly closed: Promise<void>;
  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (b: Buffer) => {
      this.got.push(...this.reader.push(b));
      this.wake?.();
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((r) => this.socket.once('close', () => r()));
    cleanups.push(() => this.socket.destroy());
  }
  async next(): Promise<ClientMessage> {
    const wait = async () => {
      while (this.got.length === 0) await new Promise<void>((r) => (this.wake = r));
      return this.got.shift()!;
    };
    return within(wait(), 5_000, 'a message');
  }
}

function request(type: number, corr: bigint): Buffer {
  const init = Buffer.alloc(16);
  init.writeInt32LE(type, 0);
  init.writeBigInt64LE(corr, 4);
  init.writeInt32LE(-1, 12);
  return encodeMessage([{ flags: Flag.UNFRAGMENTED, content: init }]);
}

const typeOf = (m: ClientMessage): number => m[0]!.content.readInt32LE(0);
const versionOf = (m: ClientMessage): number => m[0]!.content.readInt32LE(16);

async function authenticated(port: number): Promise<Conn> {
  const c = new Conn(port);
  c.socket.write(Buffer.concat([Buffer.from('CP2'), CAPTURED_AUTH]));
  expect(typeOf(await c.next())).toBe(MessageId.ClientAuthentication + 1);
  return c;
}

describe('ClientServer', () => {
  it('pushes both views at registration and again when a version changes', async () => {
    const { clock, view, port } = await setup();
    const c = await authenticated(port);
    c.socket.write(request(MessageId.ClientAddClusterViewListener, 2n));
    expect(typeOf(await c.next())).toBe(MessageId.ClientAddClusterViewListener + 1);
    const first = [await c.next(), await c.next()];
    expect(first.map(typeOf)).toEqual([MessageId.ClientMembersViewEvent, MessageId.ClientPartitionsViewEvent]);
    expect(first.map(versionOf)).toEqual([1, 1]);
    expect(first.every((m) => m[0]!.content.readBigInt64LE(4) === 2n)).toBe(true);
    view.partitions = 4;
    clock.advance(250);
    const again = await c.next();
    expect([typeOf(again), versionOf(again)]).toEqual([MessageId.ClientPartitionsViewEvent, 4]);
    view.members = 2;
    clock.advance(250);
    const members = await c.next();
    expect([typeOf(members), versionOf(members)]).toEqual([MessageId.ClientMembersViewEvent, 2]);
  });

  it('closes a connection silent past the timeout, not one that pings', async () => {
    const { clock, port, clients, logs } = await setup(1_000);
    const silent = await authenticated(port);
    const pinging = await authenticated(port);
    for (let t = 0; t < 6; t++) {
      pinging.socket.write(request(MessageId.ClientPing, BigInt(10 + t)));
      expect(typeOf(await pinging.next())).toBe(MessageId.ClientPing + 1);
      clock.advance(250);
    }
    await within(silent.closed, 5_000, 'the silent connection to close');
    expect(clients.connectionCount).toBe(1);
    expect(logs.sink.messages()).toContain('client connection closed: nothing read for 1000 ms');
    // An unauthenticated connection that says nothing after its header is closed the same way.
    const mute = new Conn(port);
    mute.socket.write('CP2');
    await waitFor('the server to accept it', () => clients.connectionCount === 2);
    clock.advance(1_250);
    await within(mute.closed, 5_000, 'the mute connection to close');
  });

  it('with security on, refuses a client without credentials (CREDENTIALS_FAILED, closed), warning once per address', async () => {
    const everyone: CredentialChecker = { securityEnabled: true, userCount: 1, check: () => true };
    const { port, logs } = await setup(60_000, everyone);
    // The captured client sends no username: refused however lenient the realm.
    const refusals = [];
    for (let i = 0; i < 3; i++) {
      const c = new Conn(port);
      c.socket.write(Buffer.concat([Buffer.from('CP2'), CAPTURED_AUTH]));
      const answer = await c.next();
      expect(typeOf(answer)).toBe(MessageId.ClientAuthentication + 1);
      refusals.push(answer[0]!.content[13]);
      await within(c.closed, 5_000, 'the refused connection to close');
    }
    expect(refusals).toEqual([1, 1, 1]);
    const warned = logs.sink.lines.filter((l) => String(l.msg).startsWith('client authentication refused'));
    expect(warned.map((l) => l.level)).toEqual(['WARNING', 'FINE', 'FINE']);
    expect(String(warned[0]!.msg)).toContain('no username and password');
  });
});
