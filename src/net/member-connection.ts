// One member-protocol connection (either direction, member or WAN): its socket, the calls
// waiting for an answer (by call id, with deadlines), and the batching of outgoing frames into
// one write per turn of the event loop. MemberNet (member-net.ts) owns the set of connections,
// dials, authenticates and dispatches; this file holds what a single connection does.

import type net from 'node:net';
import { GridError, describeError, isGridError, isGridErrorCode } from '../core/errors.js';
import { FrameKind, encodeFrameInto, type Frame, type FrameReader } from '../protocol/frame.js';
import { ValueWriter, type WireValue } from '../protocol/codec.js';
import { messageName } from '../protocol/messages.js';
import type { MemberIdentity } from '../protocol/payloads.js';
import type { StallDetector } from './stall-detector.js';


/** What a connection needs of its owner: the time, for call deadlines and stall accounting. */
export interface ConnectionOwner {
  now(): number;
}

interface Pending {
  resolve(v: WireValue): void;
  reject(e: unknown): void;
  deadline: number;
  type: number;
}

export class MemberConnection {
  peer: MemberIdentity | undefined;
  /** Set on a WAN connection (either side): the other cluster's name. */
  wanCluster: string | undefined;
  /** Set on a WAN connection (either side): the other cluster's partition hash version (1 for an older Grid, which sends none). */
  wanPartitionHash: number | undefined;
  /** Its handshake was refused: nothing more is read from it. */
  refused = false;
  private readonly pending = new Map<number, Pending>();
  private nextCallId = 1;
  /** Frames of this turn of the event loop, encoded one after the other; written as one buffer. */
  private out: ValueWriter | undefined;
  /** Size of the last turn's frames: the next turn's writer starts that big. */
  private outHint = 1024;
  closed = false;
  /** Watches an outbound member connection for silence (undefined: not watched). */
  stall: StallDetector | undefined;
  /** Found stalled: no longer used for new messages; closed once its calls are settled. */
  retired = false;
  private readonly closeListeners = new Set<() => void>();
  /** @internal */ reader: FrameReader | undefined;

  constructor(
    readonly socket: net.Socket,
    /** The address dialled (outbound), or the peer's socket address (inbound). */
    readonly remote: string,
    readonly outbound: boolean,
    private readonly owner: ConnectionOwner,
  ) {}

  /** Send a request and wait for its answer (or `timeoutMs`). */
  request(type: number, payload: WireValue, timeoutMs: number): Promise<WireValue> {
    if (this.closed) return Promise.reject(unreachable(this.describe(), 'connection closed'));
    const callId = this.nextCallId;
    this.nextCallId = this.nextCallId >= 0x7fffffff ? 1 : this.nextCallId + 1;
    return new Promise<WireValue>((resolve, reject) => {
      this.send(FrameKind.Request, type, callId, payload);
      this.pending.set(callId, { resolve, reject, deadline: this.owner.now() + timeoutMs, type });
    });
  }

  oneWay(type: number, payload: WireValue): void {
    if (this.closed) return;
    this.send(FrameKind.OneWay, type, 0, payload);
  }

  /** Call `fn` when the connection closes; returns a function that cancels the call. */
  onClose(fn: () => void): () => void {
    if (this.closed) {
      fn();
      return () => undefined;
    }
    this.closeListeners.add(fn);
    return () => this.closeListeners.delete(fn);
  }

  /** Close at once: nothing more is sent or read; pending calls fail now. */
  close(): void {
    this.socket.destroy();
    this.markClosed();
  }

  /** Calls waiting for an answer on this connection. */
  pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Close with a TCP reset, discarding what the kernel still holds for the peer: a connection
   * given up as dead (WAN liveness) must not deliver its old frames after the link heals,
   * behind the ones a new connection has already sent (a plain close would keep retransmitting
   * them as an orphan). The peer learns of it only if the reset gets through.
   */
  reset(): void {
    if (this.socket.destroyed) return;
    this.socket.resetAndDestroy();
  }

  /** Send the frames of this turn now, then end the connection (after a refusal's answer). */
  end(): void {
    this.flush();
    this.socket.end();
  }

  /** Send what is queued, then close; resolves once closed (destroyed after `timeoutMs` at the latest). */
  closeGracefully(timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), timeoutMs);
      this.onClose(() => {
        clearTimeout(timer);
        resolve();
      });
      this.flush();
      this.socket.end();
    });
  }

  describe(): string {
    return this.peer?.address ?? this.remote;
  }

  /**
   * Frames sent during one turn of the event loop are encoded straight into one buffer and go
   * out in one write after the I/O phase (setImmediate, not nextTick), so the requests of every
   * HTTP connection served in that phase share one buffer and one syscall. Throws (and sends
   * nothing) when the payload cannot be encoded.
   */
  send(kind: number, type: number, callId: number, payload: WireValue): void {
    let w = this.out;
    if (w === undefined) {
      w = this.out = new ValueWriter(this.outHint);
      setImmediate(this.flush);
    }
    encodeFrameInto(w, kind, type, callId, payload);
  }

  /** Bytes already encoded (whole frames), in this turn's buffer. */
  write(buf: Uint8Array): void {
    let w = this.out;
    if (w === undefined) {
      w = this.out = new ValueWriter(Math.max(this.outHint, buf.length));
      setImmediate(this.flush);
    }
    w.writeRaw(buf);
  }

  private readonly flush = (): void => {
    const w = this.out;
    if (w === undefined) return;
    this.out = undefined;
    if (this.closed || w.length === 0) return;
    // Start the next turn's buffer at this turn's size (within 1 KiB .. 1 MiB).
    this.outHint = Math.min(1 << 20, Math.max(1024, w.length));
    const bytes = w.finish();
    this.socket.write(bytes);
    this.stall?.wrote(bytes.length, this.owner.now());
  };

  /** @internal */ handleResponse(frame: Frame): void {
    const p = this.pending.get(frame.callId);
    if (p === undefined) return; // timed out already
    this.pending.delete(frame.callId);
    if (frame.kind === FrameKind.Response) p.resolve(frame.payload);
    else p.reject(decodeError(frame.payload));
  }

  /** @internal */ expire(now: number): void {
    for (const [id, p] of this.pending) {
      if (p.deadline <= now) {
        this.pending.delete(id);
        p.reject(new GridError('TIMEOUT', `${messageName(p.type)} to ${this.describe()} got no answer in time`));
      }
    }
  }

  /** @internal */ markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    const err = unreachable(this.describe(), 'connection closed');
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const fn of listeners) fn();
  }
}

export function unreachable(who: string, why: string): GridError {
  return new GridError('MEMBER_UNREACHABLE', `member ${who} is unreachable: ${why}`);
}

function decodeError(payload: WireValue): GridError {
  const t = Array.isArray(payload) ? (payload as WireValue[]) : [];
  const code = isGridErrorCode(t[0]) ? t[0] : 'INTERNAL';
  const message = typeof t[1] === 'string' ? t[1] : 'remote error';
  return new GridError(code, message);
}

export function encodeError(e: unknown): WireValue {
  if (isGridError(e)) return [e.code, e.message];
  return ['INTERNAL', describeError(e)];
}
