// A raw member-protocol peer for tests: speaks the preamble and frames by hand, so a test can
// send a member exactly what a hostile or broken peer would (malformed Auth, forged messages)
// and see the answers, or play a listener that answers a member's Auth with garbage.

import { PARTITION_HASH_VERSION } from '../../src/core/murmur3.js';
import net from 'node:net';
import { FrameKind, FrameReader, encodeFrame, type Frame } from '../../src/protocol/frame.js';
import type { WireValue } from '../../src/protocol/codec.js';
import { MEMBER_PREAMBLE } from '../../src/protocol/preamble.js';
import { Msg } from '../../src/protocol/messages.js';
import { encodeAuth } from '../../src/protocol/payloads.js';
import { afterEach } from 'vitest';

const open = new Set<net.Socket | net.Server>();
afterEach(() => {
  for (const s of open) {
    if (s instanceof net.Socket) s.destroy();
    else s.close();
  }
  open.clear();
});

export interface Answer {
  readonly ok: boolean;
  readonly payload: WireValue;
}

export class MemberPeer {
  private readonly reader = new FrameReader({ expectPreamble: false });
  private readonly waiting = new Map<number, (a: Answer) => void>();
  private nextCall = 1;
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: net.Socket) {
    open.add(socket);
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        for (const w of this.waiting.values()) w({ ok: false, payload: ['CLOSED', 'connection closed'] });
        this.waiting.clear();
        resolve();
      }),
    );
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = this.reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const fr of frames) {
        if (fr.kind !== FrameKind.Response && fr.kind !== FrameKind.ErrorResponse) continue;
        const w = this.waiting.get(fr.callId);
        this.waiting.delete(fr.callId);
        w?.({ ok: fr.kind === FrameKind.Response, payload: fr.payload });
      }
    });
  }

  /** Connects to a member port and sends the preamble. */
  static connect(port: number): Promise<MemberPeer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.write(MEMBER_PREAMBLE);
        resolve(new MemberPeer(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Connects and authenticates as `uuid` at `address` with the cluster name (security off). */
  static async authenticated(port: number, clusterName: string, uuid: string, address: string): Promise<MemberPeer> {
    const p = await MemberPeer.connect(port);
    const a = await p.request(Msg.Auth, encodeAuth({ clusterName, uuid, address, version: '5.3.0', partitionHash: PARTITION_HASH_VERSION }));
    if (!a.ok) throw new Error(`auth refused: ${JSON.stringify(a.payload)}`);
    return p;
  }

  request(type: number, payload: WireValue, timeoutMs = 5_000): Promise<Answer> {
    const id = this.nextCall++;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ ok: false, payload: ['TIMEOUT', 'no answer'] });
      }, timeoutMs);
      this.waiting.set(id, (a) => {
        clearTimeout(t);
        resolve(a);
      });
      this.socket.write(encodeFrame(FrameKind.Request, type, id, payload));
    });
  }

  oneWay(type: number, payload: WireValue): void {
    this.socket.write(encodeFrame(FrameKind.OneWay, type, 0, payload));
  }
}

/**
 * A listener that takes member connections and answers their Auth with `answer` (a malformed
 * one, say); it counts the Auth requests it saw.
 */
export async function fakeMemberListener(answer: (payload: WireValue) => { ok: boolean; payload: WireValue }): Promise<{ port: number; auths: () => number }> {
  let auths = 0;
  const server = net.createServer((socket) => {
    open.add(socket);
    socket.on('error', () => undefined);
    const reader = new FrameReader({ expectPreamble: true });
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const fr of frames) {
        if (fr.kind !== FrameKind.Request) continue;
        if (fr.type === Msg.Auth) auths++;
        const a = answer(fr.payload);
        socket.write(encodeFrame(a.ok ? FrameKind.Response : FrameKind.ErrorResponse, 0, fr.callId, a.payload));
      }
    });
  });
  open.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, auths: () => auths };
}
