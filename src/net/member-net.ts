// Member-to-member connections: one outbound connection per peer address, reused for every
// request and one-way message this member sends there; answers go back on the connection the
// request came in on. Every connection starts with the preamble and an Auth request (cluster
// name, and the member identity when security is on); nothing else is accepted before it.
// Requests are correlated by call id and time out; a closed connection fails its calls (one
// connection's calls, deadlines and write batching: member-connection.ts).
// An outbound member connection that is written to and hears nothing back is probed, and
// replaced once it stays silent past a bound (stall-detector.ts): a connection stuck in TCP
// retransmission back-off must not hold heartbeats back. Removing a member closes every
// connection to it (`closeMember`), so a member that comes back is talked to over new ones.

import net from 'node:net';
import type { Clock, TimerHandle } from '../core/clock.js';
import { GridError, describeError, isGridError, type GridErrorCode } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import { PARTITION_HASH_VERSION, partitionHashMismatch } from '../core/murmur3.js';
import { DEFAULT_MAX_FRAME_BYTES, FrameKind, FrameReader, type Frame } from '../protocol/frame.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg, messageName } from '../protocol/messages.js';
import { MEMBER_PREAMBLE, MEMBER_PROTOCOL_VERSION } from '../protocol/preamble.js';
import { decodeAuth, decodeAuthAnswer, encodeAuth, encodeAuthAnswer, encodeEmpty, type MemberIdentity } from '../protocol/payloads.js';
import { StallDetector, type StallBounds } from './stall-detector.js';
import { MemberConnection, encodeError, unreachable } from './member-connection.js';
import { decodeWanAuth, decodeWanAuthAnswer, encodeWanAuth, encodeWanAuthAnswer, type WanAuthPayload } from '../protocol/wan-payloads.js';

export { MemberConnection } from './member-connection.js';

export type RequestHandler = (payload: WireValue, from: MemberConnection) => MaybePromise<WireValue>;
export type OneWayHandler = (payload: WireValue, from: MemberConnection) => void;
/**
 * Decides whether an authenticated peer may send this message at all (member of the cluster,
 * master-only messages from the master): the refusal, or undefined to dispatch it.
 */
export type MessageGate = (type: number, from: MemberConnection) => GridError | 'drop' | undefined;

/** Opens an outbound connection; `ready` is the socket's event once it may carry frames. */
export type Dialer = (host: string, port: number, purpose: 'member' | 'wan') => { socket: net.Socket; ready: 'connect' | 'secureConnect' };

/**
 * Accepts or refuses WAN connections (another cluster's publisher): set by the WAN layer.
 * A WAN connection may only send the messages registered with `handleWan`; it never joins.
 */
export interface WanAcceptor {
  readonly clusterName: string;
  /** Why the WAN peer is refused, or undefined when it may connect. */
  verify(hello: WanAuthPayload): { code: GridErrorCode; reason: string } | undefined;
}

export interface MemberAuth {
  readonly clusterName: string;
  /** What this member presents when it connects (security on). */
  readonly identity: { readonly username: string; readonly password: string } | undefined;
  /** Why a connecting member is refused, or undefined when it may connect. */
  verify(clusterName: string, username: string | undefined, password: string | undefined): { code: GridErrorCode; reason: string } | undefined;
}

const CHECK_TIMEOUTS_EVERY_MS = 100;
/** How long stop() lets connections flush before destroying them. */
const STOP_FLUSH_MS = 1_000;
/** How long an inbound connection of a removed member stays open for the answers still due on it. */
const REMOVED_INBOUND_GRACE_MS = 500;
/** Largest frame an inbound connection may send before it has authenticated. */
const PRE_AUTH_MAX_FRAME_BYTES = 64 * 1024;

export class MemberNet {
  private readonly handlers = new Map<number, RequestHandler>();
  private readonly wanHandlers = new Map<number, RequestHandler>();
  private wanAcceptor: WanAcceptor | undefined;
  private readonly oneWayHandlers = new Map<number, OneWayHandler>();
  private readonly outbound = new Map<string, Promise<MemberConnection>>();
  /** Outbound connections that are up, for sending without a promise hop. */
  private readonly ready = new Map<string, MemberConnection>();
  private readonly inbound = new Set<MemberConnection>();
  private readonly live = new Set<MemberConnection>();
  private readonly outboundClosedListeners: ((address: string) => void)[] = [];
  private timer: TimerHandle | undefined;
  private stopped = false;
  private gate: MessageGate | undefined;
  private refusalsLogged = 0;

  constructor(
    private readonly deps: {
      readonly logger: Logger;
      readonly clock: Clock;
      readonly auth: MemberAuth;
      readonly local: () => MemberIdentity;
      readonly connectTimeoutMs: number;
      readonly version: string;
      /** When an outbound member connection counts as stalled (undefined: never). */
      readonly stall?: StallBounds;
      /** Opens outbound connections (TLS: tls/tls-dialer.ts); undefined: plain TCP. */
      readonly dialer?: Dialer;
    },
  ) {
    this.timer = deps.clock.setInterval(() => {
      const now = this.now();
      for (const c of this.live) {
        c.expire(now);
        if (c.stall !== undefined && !c.closed) this.checkStall(c, now);
      }
    }, CHECK_TIMEOUTS_EVERY_MS);
  }

  /** Probe a silent connection, retire a stalled one; close a retired one once its calls are settled. */
  private checkStall(c: MemberConnection, now: number): void {
    if (c.retired) {
      if (c.pendingCount() === 0) c.close();
      return;
    }
    const verdict = c.stall!.check(now);
    if (verdict === 'probe') {
      // Any answer shows the connection delivers (an older member answers an unknown message with an error).
      c.request(Msg.Ping, encodeEmpty(), this.deps.stall!.stallAfterMs).catch(() => undefined);
    } else if (verdict === 'stalled') {
      const { silentMs, bytes } = c.stall!.unanswered(now);
      this.deps.logger.warn(
        { remote: c.describe(), silentMs, bytes },
        `member connection to ${c.describe()} stalled: ${bytes} bytes written over ${silentMs} ms and nothing came back (packets lost, TCP in retransmission back-off?): later messages go over a new connection`,
      );
      this.retire(c);
    }
  }

  /** Stop sending on `c`: the next message to its address dials a new connection. */
  private retire(c: MemberConnection): void {
    c.retired = true;
    const address = c.remote;
    if (this.ready.get(address) === c) {
      this.ready.delete(address);
      this.outbound.delete(address);
    }
    if (c.pendingCount() === 0) c.close();
  }

  /**
   * Member `uuid` (at `address`) was removed: close every connection to and from it. Connections
   * this member dialled close at once (their pending calls fail), and a dial to its address still
   * under way is closed once it turns out to reach that member, so any later message goes over a
   * new connection: one opened before a cut may sit in TCP back-off for many seconds. Connections
   * it dialled here close a moment later, after the answers being computed for it (a leaving
   * member's LeaveRequest) went out.
   */
  closeMember(uuid: string, address: string): void {
    const pending = this.outbound.get(address);
    if (pending !== undefined && this.ready.get(address) === undefined) {
      pending.then(
        (c) => {
          if (c.peer?.uuid === uuid) c.close();
        },
        () => undefined,
      );
    }
    let closed = 0;
    for (const c of [...this.live]) {
      if (c.wanCluster !== undefined || c.peer?.uuid !== uuid) continue;
      closed++;
      if (c.outbound) c.close();
      else this.deps.clock.setTimeout(() => void c.closeGracefully(STOP_FLUSH_MS), REMOVED_INBOUND_GRACE_MS);
    }
    if (closed > 0) this.deps.logger.info({ remote: address, uuid }, `closed ${closed} connection(s) of removed member ${address}`);
  }

  now(): number {
    return this.deps.clock.now();
  }

  handle(type: number, handler: RequestHandler): void {
    this.handlers.set(type, handler);
  }

  handleOneWay(type: number, handler: OneWayHandler): void {
    this.oneWayHandlers.set(type, handler);
  }

  /** A request another cluster may send on a WAN connection (and nothing else may). */
  handleWan(type: number, handler: RequestHandler): void {
    this.wanHandlers.set(type, handler);
  }

  /** Accept WAN connections from now on (refused until set). */
  setWanAcceptor(acceptor: WanAcceptor): void {
    this.wanAcceptor = acceptor;
  }

  /**
   * A new WAN connection to another cluster's member (not shared, not a member connection):
   * the caller owns it and closes it. Rejects when the target refuses the handshake, or when
   * the TCP connect or the handshake takes longer than `timeoutMs` (default: the member
   * connection timeout).
   */
  dialWan(address: string, hello: WanAuthPayload, timeoutMs = this.deps.connectTimeoutMs): Promise<MemberConnection> {
    if (this.stopped) return Promise.reject(unreachable(address, 'this member is stopping'));
    return this.dial(address, timeoutMs, (conn) =>
      conn.request(Msg.WanAuth, encodeWanAuth(hello), timeoutMs).then((answer) => {
        const a = decodeWanAuthAnswer(answer);
        conn.wanCluster = a.clusterName;
        conn.wanPartitionHash = a.partitionHash ?? 1;
        return { uuid: a.uuid, address };
      }),
    );
  }

  /** Every request and one-way message after Auth passes `gate` before its handler runs. */
  setGate(gate: MessageGate): void {
    this.gate = gate;
  }

  /** Called with the address of an outbound connection that closed (the peer may be gone); not for one closed as stalled. */
  onOutboundClosed(fn: (address: string) => void): void {
    this.outboundClosedListeners.push(fn);
  }

  /** Member connections open now, both directions. */
  connectionCount(): number {
    return this.live.size;
  }

  /** The open outbound connection to `address`, if any (no dialling). */
  existing(address: string): Promise<MemberConnection> | undefined {
    return this.outbound.get(address);
  }

  /** The outbound connection to `address`, dialled and authenticated if needed. */
  connect(address: string): Promise<MemberConnection> {
    if (this.stopped) return Promise.reject(unreachable(address, 'this member is stopping'));
    let c = this.outbound.get(address);
    if (c === undefined) {
      const p = this.dial(address, this.deps.connectTimeoutMs);
      this.outbound.set(address, p);
      p.then(
        (conn) => {
          if (this.deps.stall !== undefined) conn.stall = new StallDetector(this.deps.stall);
          if (!conn.closed) this.ready.set(address, conn);
          conn.onClose(() => {
            if (this.ready.get(address) === conn) this.ready.delete(address);
            if (this.outbound.get(address) === p) this.outbound.delete(address);
            // A stalled connection replaced says nothing of the peer's life (it may be paused, or
            // behind a cut): the heartbeat deadline judges that, not the connection monitor.
            if (!this.stopped && !conn.retired) for (const fn of this.outboundClosedListeners) fn(address);
          });
        },
        () => {
          if (this.outbound.get(address) === p) this.outbound.delete(address);
        },
      );
      c = p;
    }
    return c;
  }

  /**
   * Send a request to `address` and wait for its answer; `timeoutMs` covers dialling too (a dial
   * to a paused peer, after its connection stalled, would otherwise hold the call for the whole
   * connect timeout: a backup's ack must not wait longer than the backup timeout).
   */
  request(address: string, type: number, payload: WireValue, timeoutMs: number): Promise<WireValue> {
    const up = this.ready.get(address);
    if (up !== undefined && !up.closed) return up.request(type, payload, timeoutMs);
    const deadline = this.now() + timeoutMs;
    return new Promise<WireValue>((resolve, reject) => {
      let connected = false;
      const timer = this.deps.clock.setTimeout(() => {
        if (connected) return;
        connected = true; // settled: a late connection carries nothing for this call
        reject(new GridError('TIMEOUT', `${messageName(type)} to ${address} got no answer in time (still connecting)`));
      }, timeoutMs);
      this.connect(address).then(
        (conn) => {
          if (connected) return;
          connected = true;
          timer.cancel();
          conn.request(type, payload, Math.max(1, deadline - this.now())).then(resolve, reject);
        },
        (e: unknown) => {
          if (connected) return;
          connected = true;
          timer.cancel();
          reject(e);
        },
      );
    });
  }

  /** Fire and forget; dials if needed, drops the message when the peer is unreachable. */
  oneWay(address: string, type: number, payload: WireValue): void {
    const up = this.ready.get(address);
    if (up !== undefined && !up.closed) {
      up.oneWay(type, payload);
      return;
    }
    const existing = this.outbound.get(address);
    const c = existing ?? this.connect(address);
    c.then(
      (conn) => conn.oneWay(type, payload),
      () => undefined,
    );
  }

  /** Take over an inbound socket whose first bytes are `head` (from the Listener). */
  accept(socket: net.Socket, head: Buffer): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    const conn = new MemberConnection(socket, `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`, false, this);
    this.inbound.add(conn);
    this.wire(conn, true);
    socket.emit('data', head);
    socket.resume();
  }

  /** Stop: messages already queued (a last one-way, say) still go out; then every member connection closes. */
  stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    const all = new Set([...this.live, ...this.inbound]);
    return Promise.all([...all].map((c) => c.closeGracefully(STOP_FLUSH_MS))).then(() => undefined);
  }

  private dial(address: string, timeoutMs: number, handshake?: (conn: MemberConnection) => Promise<MemberIdentity>): Promise<MemberConnection> {
    const { host, port } = splitAddress(address);
    return new Promise<MemberConnection>((resolve, reject) => {
      const { socket, ready } = this.deps.dialer?.(host, port, handshake === undefined ? 'member' : 'wan') ?? { socket: net.connect({ host, port, noDelay: true }), ready: 'connect' };
      const conn = new MemberConnection(socket, address, true, this);
      let settled = false;
      const fail = (e: unknown): void => {
        if (settled) return;
        settled = true;
        socket.destroy();
        reject(isGridError(e) ? e : unreachable(address, describeError(e)));
      };
      socket.setTimeout(timeoutMs, () => fail(new Error('connect timed out')));
      socket.once('error', fail);
      socket.once(ready, () => {
        socket.setTimeout(0);
        this.wire(conn, false);
        socket.write(MEMBER_PREAMBLE);
        const me = this.deps.local();
        const id = this.deps.auth.identity;
        const hello =
          handshake?.(conn) ??
          conn
            .request(
              Msg.Auth,
              encodeAuth({
                clusterName: this.deps.auth.clusterName,
                uuid: me.uuid,
                address: me.address,
                username: id?.username,
                password: id?.password,
                version: this.deps.version,
                partitionHash: PARTITION_HASH_VERSION,
              }),
              this.deps.connectTimeoutMs,
            )
            .then((answer) => {
              const a = decodeAuthAnswer(answer);
              // A member of an older Grid accepts us without a look at the hash: refuse it from this side.
              const mismatch = partitionHashMismatch(a.partitionHash ?? 1, `member ${address}`);
              if (mismatch !== undefined) throw new GridError('CONFLICT', `${mismatch}; members of different partition hash versions never form one cluster`);
              return { uuid: a.uuid, address: a.address };
            });
        hello
          .then((peer) => {
            if (settled) return;
            conn.peer = peer;
            settled = true;
            socket.off('error', fail);
            resolve(conn);
          })
          .catch((e: unknown) => {
            // A peer that answers Auth with the wrong shape is not a member: fail this dial only.
            if (!settled && (!isGridError(e) || e.code === 'BAD_REQUEST')) this.deps.logger.warn({ remote: address }, `member connection to ${address} closed: ${describeError(e)}`);
            fail(e);
          });
      });
    });
  }

  private wire(conn: MemberConnection, inbound: boolean): void {
    // Until an inbound connection has authenticated, only small frames (Auth) are accepted.
    const reader = new FrameReader({ expectPreamble: inbound, maxFrameBytes: inbound ? PRE_AUTH_MAX_FRAME_BYTES : DEFAULT_MAX_FRAME_BYTES });
    conn.reader = reader;
    const socket = conn.socket;
    this.live.add(conn);
    // The connection's error boundary: whatever a peer sends, a failure to decode or dispatch
    // it closes this connection (with a log line) and nothing else.
    socket.on('data', (chunk: Buffer) => {
      conn.stall?.heard();
      try {
        const frames = reader.push(chunk);
        for (const frame of frames) {
          if (conn.closed || socket.destroyed) return;
          this.onFrame(conn, frame);
        }
      } catch (e) {
        this.deps.logger.warn({ remote: conn.describe() }, `member connection closed: ${describeError(e)}`);
        socket.destroy();
      }
    });
    socket.on('error', (e) => this.deps.logger.debug({ remote: conn.describe(), err: e.message }, 'member connection error'));
    socket.on('close', () => {
      this.live.delete(conn);
      this.inbound.delete(conn);
      conn.markClosed();
    });
  }

  private onFrame(conn: MemberConnection, frame: Frame): void {
    // A refused handshake ends the connection: frames that came in the same chunk are not read.
    if (conn.refused) return;
    if (conn.peer === undefined && !conn.outbound) {
      if (frame.type === Msg.WanAuth && frame.kind === FrameKind.Request) {
        this.authenticateWan(conn, frame);
        return;
      }
      if (frame.type !== Msg.Auth || frame.kind !== FrameKind.Request) {
        this.deps.logger.warn({ remote: conn.describe() }, `member connection closed: ${messageName(frame.type)} before authentication`);
        conn.close();
        return;
      }
      this.authenticate(conn, frame);
      return;
    }
    if (frame.kind === FrameKind.Response || frame.kind === FrameKind.ErrorResponse) {
      conn.handleResponse(frame);
      return;
    }
    if (conn.peer === undefined) {
      // A member we dialled sends requests before answering our Auth: not a member.
      this.deps.logger.warn({ remote: conn.describe() }, `member connection closed: ${messageName(frame.type)} before authentication`);
      conn.close();
      return;
    }
    if (frame.type === Msg.Ping && frame.kind === FrameKind.Request) {
      // Answered here, on any authenticated connection: the caller only learns the connection delivers.
      this.reply(conn, frame.callId, null, false);
      return;
    }
    if (conn.wanCluster !== undefined) {
      this.onWanFrame(conn, frame);
      return;
    }
    const refusal = this.gate?.(frame.type, conn);
    if (refusal === 'drop') {
      // Simulated loss (tests): answered as if handled, not handled.
      if (frame.kind === FrameKind.Request) this.reply(conn, frame.callId, null, false);
      return;
    }
    if (refusal !== undefined) {
      this.refusalsLogged++;
      if (this.refusalsLogged <= 20 || this.refusalsLogged % 1000 === 0) {
        this.deps.logger.warn(
          { remote: conn.describe(), uuid: conn.peer?.uuid, message: messageName(frame.type) },
          `member message refused (${this.refusalsLogged} so far): ${refusal.message}`,
        );
      }
      if (frame.kind === FrameKind.Request) this.reply(conn, frame.callId, refusal, true);
      return;
    }
    if (frame.kind === FrameKind.OneWay) {
      const h = this.oneWayHandlers.get(frame.type);
      if (h === undefined) {
        this.deps.logger.debug({ type: frame.type }, 'unknown one-way member message ignored');
        return;
      }
      try {
        h(frame.payload, conn);
      } catch (e) {
        this.deps.logger.warn({ remote: conn.describe(), message: messageName(frame.type) }, `member message failed: ${describeError(e)}`);
      }
      return;
    }
    const h = this.handlers.get(frame.type);
    if (h === undefined) {
      this.reply(conn, frame.callId, new GridError('BAD_REQUEST', `unknown member message ${messageName(frame.type)}`), true);
      return;
    }
    this.answer(conn, frame, h);
  }

  /** A WAN connection carries only WAN requests, never member messages. */
  private onWanFrame(conn: MemberConnection, frame: Frame): void {
    const h = conn.outbound ? undefined : this.wanHandlers.get(frame.type);
    if (h === undefined || frame.kind !== FrameKind.Request) {
      this.deps.logger.warn({ remote: conn.describe(), cluster: conn.wanCluster }, `WAN connection closed: ${messageName(frame.type)} is not a WAN request`);
      conn.close();
      return;
    }
    this.answer(conn, frame, h);
  }

  /** Run a request's handler and send its answer (or its error) back on the connection. */
  private answer(conn: MemberConnection, frame: Frame, h: RequestHandler): void {
    let result: MaybePromise<WireValue>;
    try {
      result = h(frame.payload, conn);
    } catch (e) {
      this.reply(conn, frame.callId, e, true);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (v) => this.reply(conn, frame.callId, v, false),
        (e: unknown) => this.reply(conn, frame.callId, e, true),
      );
    } else {
      this.reply(conn, frame.callId, result, false);
    }
  }

  private authenticateWan(conn: MemberConnection, frame: Frame): void {
    let hello: WanAuthPayload;
    try {
      hello = decodeWanAuth(frame.payload);
      if (hello.uuid.length === 0 || hello.uuid.length > 64) throw new GridError('BAD_REQUEST', 'malformed member message: wan auth uuid');
      for (const [what, v] of [['source cluster', hello.sourceCluster], ['target cluster', hello.targetCluster], ['username', hello.username ?? ''], ['password', hello.password ?? ''], ['version', hello.version]] as const) {
        if (v.length > 1024) throw new GridError('BAD_REQUEST', `malformed member message: wan auth ${what} longer than 1024`);
      }
      splitAddress(hello.address);
    } catch (e) {
      this.deps.logger.warn({ remote: conn.describe() }, `WAN connection refused: ${describeError(e)}`);
      this.refuse(conn, frame.callId, isGridError(e) ? e : new GridError('BAD_REQUEST', describeError(e)));
      return;
    }
    const refusal = this.wanAcceptor === undefined ? { code: 'NOT_ENABLED' as const, reason: 'this member does not accept WAN connections yet' } : this.wanAcceptor.verify(hello);
    if (refusal !== undefined) {
      this.deps.logger.warn({ remote: conn.describe(), source: hello.sourceCluster }, `refused WAN publisher of cluster "${hello.sourceCluster}" from ${hello.address}: ${refusal.reason}`);
      this.refuse(conn, frame.callId, new GridError(refusal.code, refusal.reason));
      return;
    }
    conn.wanCluster = hello.sourceCluster;
    // WAN replication works across partition hash versions (a target places every key itself); the Merkle check does not (wan-target.ts).
    conn.wanPartitionHash = hello.partitionHash ?? 1;
    conn.peer = { uuid: hello.uuid, address: hello.address };
    conn.reader?.setMaxFrameBytes(DEFAULT_MAX_FRAME_BYTES);
    this.deps.logger.info({ remote: conn.describe(), source: hello.sourceCluster }, `WAN publisher of cluster "${hello.sourceCluster}" connected from ${hello.address}`);
    this.reply(conn, frame.callId, encodeWanAuthAnswer({ clusterName: this.wanAcceptor!.clusterName, uuid: this.deps.local().uuid, partitionHash: PARTITION_HASH_VERSION }), false);
  }

  /** Answer a refused handshake with its error and end the connection: nothing more is read from it. */
  private refuse(conn: MemberConnection, callId: number, err: GridError): void {
    this.reply(conn, callId, err, true);
    conn.refused = true;
    conn.end();
  }

  private reply(conn: MemberConnection, callId: number, value: unknown, isError: boolean): void {
    if (conn.closed) return;
    if (isError && !isGridError(value)) {
      this.deps.logger.error({ err: value }, `member request failed unexpectedly: ${describeError(value)}`);
    }
    try {
      if (isError) conn.send(FrameKind.ErrorResponse, 0, callId, encodeError(value));
      else conn.send(FrameKind.Response, 0, callId, value as WireValue);
    } catch (e) {
      this.deps.logger.error({ err: e }, `member answer could not be encoded: ${describeError(e)}`);
      conn.send(FrameKind.ErrorResponse, 0, callId, ['INTERNAL', `answer could not be encoded: ${describeError(e)}`]);
    }
  }

  private authenticate(conn: MemberConnection, frame: Frame): void {
    let clusterName: string;
    let uuid: string;
    let address: string;
    let username: string | undefined;
    let password: string | undefined;
    let partitionHash: number | undefined;
    try {
      ({ clusterName, uuid, address, username, password, partitionHash } = decodeAuth(frame.payload));
      if (uuid.length === 0 || uuid.length > 64) throw new GridError('BAD_REQUEST', 'malformed member message: auth uuid');
      splitAddress(address);
    } catch (e) {
      this.deps.logger.warn({ remote: conn.describe() }, `member connection refused: ${describeError(e)}`);
      this.refuse(conn, frame.callId, isGridError(e) ? e : new GridError('BAD_REQUEST', describeError(e)));
      return;
    }
    const refusal = this.deps.auth.verify(clusterName, username, password) ?? hashRefusal(address, partitionHash);
    if (refusal !== undefined) {
      this.deps.logger.warn({ remote: address, uuid }, `refused member ${address}: ${refusal.reason}`);
      this.refuse(conn, frame.callId, new GridError(refusal.code, refusal.reason));
      return;
    }
    conn.peer = { uuid, address };
    conn.reader?.setMaxFrameBytes(DEFAULT_MAX_FRAME_BYTES);
    const me = this.deps.local();
    this.reply(conn, frame.callId, encodeAuthAnswer({ uuid: me.uuid, address: me.address, partitionHash: PARTITION_HASH_VERSION }), false);
  }
}

/** Members place keys by one partition hash version, or they would look for them in different partitions (an older member sends none: version 1). */
function hashRefusal(address: string, partitionHash: number | undefined): { code: 'CONFLICT'; reason: string } | undefined {
  const mismatch = partitionHashMismatch(partitionHash ?? 1, `member ${address}`);
  return mismatch === undefined ? undefined : { code: 'CONFLICT', reason: `${mismatch}; members of different partition hash versions never form one cluster` };
}

export function splitAddress(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || !(port >= 1 && port <= 65535) || m[1]!.length > 255) throw new GridError('BAD_REQUEST', `not a member address: ${address.slice(0, 300)}`);
  return { host: m[1]!, port };
}

/** Protocol version this build speaks, for messages. */
export const PROTOCOL_VERSION = MEMBER_PROTOCOL_VERSION;
