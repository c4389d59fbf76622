// One connection of a Hazelcast client (after its `CP2` header): decodes messages inside the
// connection's error boundary, authenticates, answers the client-service messages, and runs
// map and queue requests through the same facades REST uses, so each runs on its key's owner
// whatever member the client sent it to. Every request gets an answer (a result or Hazelcast's
// error frame); a malformed frame closes this connection only.

import type net from 'node:net';
import { describeError, GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import { AuthStatus, decodeAuthRequest, encodeAuthResponse, SERIALIZATION_VERSION, type AuthStatusCode } from './auth-codec.js';
import { MessageBuilder, requestHeader, writeUuid, type RequestHeader } from './codec.js';
import { encodeMembersView, encodePartitionsView } from './cluster-view-codec.js';
import { dataOfStored, keyOf, storedFormOf } from './data.js';
import { partitionIdOf } from '../partition/partitioning.js';
import { encodeError, ErrorCode, holder, holderOf } from './error-codec.js';
import { encodeMessage, FrameReader, type ClientMessage } from './frame.js';
import { HAZELCAST_COMPAT_VERSION, MessageId } from './message-ids.js';
import { boolResponse, checkDefaultTtl, decodeDataRequest, emptyResponse, intResponse, nullableDataResponse, uuidResponse, type DataRequest } from './request-codecs.js';
import type { ClientDeps } from './client-deps.js';

/** The longest a client's poll waits here: a client poll with no deadline (-1) is answered empty after this and polled again by the app. */
const MAX_POLL_WAIT_MS = 2 ** 31 - 1;

/**
 * Answers waiting in the socket's write buffer beyond which this connection stops reading
 * (resumed on 'drain'): a client that pipelines requests without reading its answers is held
 * back rather than growing the member's memory.
 */
const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

/** Marks a response its handler already wrote itself (a poll's, whose write the reservation follows). */
const SENT = new MessageBuilder(Buffer.alloc(0));

export class ClientConnection {
  private readonly reader = new FrameReader();
  private authenticated = false;
  /** Correlation id of the cluster view listener registered on this connection. */
  private viewListener: bigint | undefined;
  private pushedMembersVersion = -1;
  private pushedPartitionsVersion = -1;
  private closed = false;
  private clientName = '';
  /** When this connection last read anything (the clients ping every 5 s when idle). */
  private lastReadAt: number;
  /** Waiting polls told when this connection closes (one socket listener for all of them). */
  private readonly onClose = new Set<() => void>();

  constructor(
    private readonly socket: net.Socket,
    private readonly deps: ClientDeps,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {
    this.lastReadAt = now();
  }

  /** Milliseconds since this connection last read anything. */
  silentForMs(): number {
    return this.now() - this.lastReadAt;
  }

  get name(): string {
    return this.clientName;
  }

  /** Start reading; `head` holds the first bytes already read (the `CP2` header first). */
  start(head: Buffer): void {
    this.socket.on('error', (e) => this.log.debug({ remote: this.socket.remoteAddress }, `client connection error: ${e.message}`));
    this.socket.once('close', () => {
      this.closed = true;
      this.deps.onClosed(this);
      for (const fn of this.onClose) fn();
      this.onClose.clear();
    });
    this.socket.on('data', (chunk: Buffer) => this.feed(chunk));
    if (head.length > 3) this.feed(head.subarray(3));
    this.socket.resume();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }

  private feed(chunk: Buffer): void {
    if (this.closed) return;
    this.lastReadAt = this.now();
    let messages: ClientMessage[];
    try {
      messages = this.reader.push(chunk);
    } catch (e) {
      this.log.warn({ remote: this.socket.remoteAddress }, `client connection closed: ${describeError(e)}`);
      this.socket.destroy();
      return;
    }
    if (messages.length === 1) {
      this.handle(messages[0]!);
      return;
    }
    // Pipelined requests: the answers known at once leave in one write.
    this.socket.cork();
    for (const m of messages) this.handle(m);
    this.socket.uncork();
  }

  private handle(m: ClientMessage): void {
    // Refused or closed earlier in this read: the rest of it is not served.
    if (this.closed) return;
    let h: RequestHeader;
    try {
      h = requestHeader(m);
    } catch (e) {
      this.log.warn({ remote: this.socket.remoteAddress }, `client connection closed: ${describeError(e)}`);
      this.socket.destroy();
      return;
    }
    let answer: MaybePromise<MessageBuilder>;
    try {
      answer = this.answer(h, m);
    } catch (e) {
      answer = this.failure(h, e);
    }
    if (answer instanceof Promise) {
      answer.then(
        (b) => this.send(b),
        (e: unknown) => this.send(this.failure(h, e)),
      );
    } else this.send(answer);
  }

  private failure(h: RequestHeader, e: unknown): MessageBuilder {
    if (e instanceof GridError && e.code === 'BAD_REQUEST') this.log.debug(`client request 0x${h.type.toString(16)} refused: ${e.message}`);
    else if (!(e instanceof GridError)) this.log.warn(`client request 0x${h.type.toString(16)} failed: ${describeError(e)}`);
    return encodeError(h.correlationId, [holderOf(e)]);
  }

  private send(b: MessageBuilder, written?: (ok: boolean) => void): void {
    if (b === SENT) return;
    if (this.closed || this.socket.destroyed || !this.socket.writable) {
      written?.(false);
      return;
    }
    const bytes = encodeMessage(b.frames);
    if (written === undefined) this.socket.write(bytes);
    else this.socket.write(bytes, (err) => written(err === undefined || err === null));
    if (this.socket.writableLength > MAX_UNSENT_BYTES && !this.socket.isPaused()) {
      this.socket.pause();
      this.socket.once('drain', () => {
        if (!this.closed) this.socket.resume();
      });
    }
  }

  private answer(h: RequestHeader, m: ClientMessage): MaybePromise<MessageBuilder> {
    if (h.type === MessageId.ClientAuthentication) return this.authenticate(h, m);
    if (!this.authenticated) {
      // Hazelcast closes a connection whose first message is not an authentication: answer, then close.
      this.socket.end(encodeMessage(encodeError(h.correlationId, [holder(ErrorCode.AUTHENTICATION, 'the connection is not authenticated')]).frames));
      this.closed = true;
      throw new GridError('FORBIDDEN', 'not authenticated');
    }
    switch (h.type) {
      case MessageId.ClientPing:
      case MessageId.ClientStatistics: // accepted and not kept: Grid has no client statistics view yet
      case MessageId.ClientCreateProxy: // Grid's maps and queues exist once used: nothing to create
      case MessageId.ClientCreateProxies:
      case MessageId.ClientDestroyProxy:
        return emptyResponse(h.type, h.correlationId);
      case MessageId.ClientGetDistributedObjects:
        // Grid keeps no proxy registry: the list is empty (docs/clients.md).
        return emptyResponse(h.type, h.correlationId).begin().end();
      case MessageId.ClientLocalBackupListener:
        // Grid acknowledges backups before it answers, so every response says 0 backup acks and no backup event is ever sent.
        return uuidResponse(h.type, h.correlationId, (buf, at) => writeUuid(buf, at, this.deps.localUuid()));
      case MessageId.ClientAddClusterViewListener:
        this.viewListener = h.correlationId;
        this.pushedMembersVersion = -1;
        this.pushedPartitionsVersion = -1;
        // The response first, then the views (on the next turn, after it was written).
        queueMicrotask(() => this.pushViews());
        return emptyResponse(h.type, h.correlationId);
    }
    const req = decodeDataRequest(h.type, m);
    if (req === undefined) {
      throw new GridError('UNSUPPORTED', `client message type 0x${h.type.toString(16).padStart(6, '0')} is not supported by Grid yet`);
    }
    return this.serve(h, req);
  }

  private authenticate(h: RequestHeader, m: ClientMessage): MessageBuilder {
    const req = decodeAuthRequest(m);
    let status: AuthStatusCode = AuthStatus.AUTHENTICATED;
    if (req.serializationVersion !== SERIALIZATION_VERSION) status = AuthStatus.SERIALIZATION_VERSION_MISMATCH;
    else if (req.clusterName !== this.deps.clusterName) status = AuthStatus.CREDENTIALS_FAILED;
    if (status !== AuthStatus.AUTHENTICATED) {
      this.log.warn(
        { remote: this.socket.remoteAddress, client: req.clientName, clientType: req.clientType },
        status === AuthStatus.CREDENTIALS_FAILED
          ? `client authentication refused: cluster name "${req.clusterName}" is not this cluster's`
          : `client authentication refused: serialization version ${req.serializationVersion} (only ${SERIALIZATION_VERSION})`,
      );
      // The client closes the connection on a refusal; close it here too once the answer is out.
      const b = encodeAuthResponse(h.correlationId, {
        status,
        memberUuid: null,
        partitionCount: this.deps.partitionCount,
        clusterId: null,
        address: null,
        serverVersion: HAZELCAST_COMPAT_VERSION,
      });
      this.socket.end(encodeMessage(b.frames));
      this.closed = true;
      return b;
    }
    this.authenticated = true;
    this.clientName = req.clientName;
    this.log.info({ remote: this.socket.remoteAddress, client: req.clientName, clientType: req.clientType, clientVersion: req.clientVersion }, 'client authenticated');
    const local = this.deps.localMember();
    return encodeAuthResponse(h.correlationId, {
      status,
      memberUuid: local.uuid,
      partitionCount: this.deps.partitionCount,
      clusterId: this.deps.clusterId,
      address: { host: local.host, port: local.port },
      serverVersion: HAZELCAST_COMPAT_VERSION,
    });
  }

  /** Push the members and partitions views to this connection's listener when they changed. */
  pushViews(): void {
    if (this.viewListener === undefined || this.closed) return;
    const mv = this.deps.memberListVersion();
    if (mv !== this.pushedMembersVersion) {
      this.pushedMembersVersion = mv;
      this.send(encodeMembersView(this.viewListener, mv, this.deps.members()));
    }
    const pv = this.deps.partitionTableVersion();
    if (pv !== this.pushedPartitionsVersion) {
      const owners = this.deps.partitionOwners();
      // The clients ignore an empty table; send one only when partitions are assigned.
      if (owners.some((o) => o !== undefined)) {
        this.pushedPartitionsVersion = pv;
        this.send(encodePartitionsView(this.viewListener, pv, owners));
      }
    }
  }

  private serve(h: RequestHeader, r: DataRequest): MaybePromise<MessageBuilder> {
    const { type, correlationId: corr } = h;
    const { maps, queues } = this.deps;
    if (r.kind === 'map.get' || r.kind === 'map.containsKey' || r.kind === 'map.put' || r.kind === 'map.remove' || r.kind === 'map.delete') this.countRouting(r.key);
    switch (r.kind) {
      case 'map.get':
        return then(maps.get(r.name, keyOf(r.key)), (v) => nullableDataResponse(type, corr, v === undefined ? undefined : dataOfStored(v.value, v.contentType)));
      case 'map.containsKey':
        return then(maps.get(r.name, keyOf(r.key)), (v) => boolResponse(type, corr, v !== undefined));
      case 'map.put': {
        checkDefaultTtl(r.ttlMs);
        const key = keyOf(r.key);
        const stored = storedFormOf(r.value);
        if (!r.returnOld) return then(maps.put(r.name, key, stored.value, stored.contentType), () => emptyResponse(type, corr));
        // Grid's put does not return the old value: read it first (not atomic with the put; docs/clients.md).
        return then(maps.get(r.name, key), (old) =>
          then(maps.put(r.name, key, stored.value, stored.contentType), () =>
            nullableDataResponse(type, corr, old === undefined ? undefined : dataOfStored(old.value, old.contentType)),
          ),
        );
      }
      case 'map.remove': {
        const key = keyOf(r.key);
        return then(maps.get(r.name, key), (old) =>
          then(maps.remove(r.name, key), (removed) =>
            nullableDataResponse(type, corr, old === undefined || !removed ? undefined : dataOfStored(old.value, old.contentType)),
          ),
        );
      }
      case 'map.delete':
        return then(maps.remove(r.name, keyOf(r.key)), () => emptyResponse(type, corr));
      case 'map.size':
        return maps.size(r.name).then((n) => intResponse(type, corr, n));
      case 'map.isEmpty':
        return maps.size(r.name).then((n) => boolResponse(type, corr, n === 0));
      case 'map.clear':
        return maps.clear(r.name).then(() => emptyResponse(type, corr));
      case 'queue.offer': {
        const stored = storedFormOf(r.value);
        return then(queues.offer(r.name, { value: stored.value, contentType: stored.contentType }), (ok) => boolResponse(type, corr, ok));
      }
      case 'queue.poll':
        return this.poll(h, r.name, r.timeoutMs);
      case 'queue.peek':
        return then(queues.peek(r.name), (it) => nullableDataResponse(type, corr, it === undefined ? undefined : dataOfStored(it.value, it.contentType)));
      case 'queue.size':
        return then(queues.size(r.name), (n) => intResponse(type, corr, n));
      case 'queue.isEmpty':
        return then(queues.size(r.name), (n) => boolResponse(type, corr, n === 0));
    }
  }

  /**
   * Smart routing's effect, measured: a keyed request whose key's partition (where the map runs
   * it) another member owns is forwarded there. A key that is not a String is refused anyway.
   */
  private countRouting(data: Buffer): void {
    let pid: number;
    try {
      pid = partitionIdOf(keyOf(data));
    } catch {
      return;
    }
    const routing = this.deps.routing;
    routing.keyed++;
    if (this.deps.ownerOf(pid) !== this.deps.localUuid()) routing.forwarded++;
  }

  /**
   * A poll answers when an item comes or the timeout passes. The item stays reserved at its
   * owner until the answer was handed to the socket (as for REST polls): a client gone before
   * that gives it back to the queue.
   */
  private poll(h: RequestHeader, name: string, timeoutMs: bigint): MaybePromise<MessageBuilder> {
    const waitMs = timeoutMs < 0n ? MAX_POLL_WAIT_MS : Number(timeoutMs > BigInt(MAX_POLL_WAIT_MS) ? BigInt(MAX_POLL_WAIT_MS) : timeoutMs);
    const answered: ((written: boolean) => void)[] = [];
    let gone: (() => void) | undefined;
    const item = this.deps.queues.poll(name, waitMs, {
      alive: () => !this.closed && !this.socket.destroyed,
      onGone: (fn) => {
        gone = fn;
        this.onClose.add(fn);
      },
      onAnswered: (fn) => answered.push(fn),
    });
    // A long-lived connection runs many polls: each forgets its close callback once it is over.
    const forget = (): void => {
      if (gone !== undefined) this.onClose.delete(gone);
    };
    if (item instanceof Promise) item.then(forget, forget);
    else forget();
    const reply = (it: { value: string; contentType: string | undefined } | undefined): MessageBuilder => {
      const b = nullableDataResponse(h.type, h.correlationId, it === undefined ? undefined : dataOfStored(it.value, it.contentType));
      if (answered.length === 0) return b;
      // Written here so the reservation follows the write; the caller's send is skipped.
      this.send(b, (ok) => {
        for (const fn of answered.splice(0)) fn(ok);
      });
      return SENT;
    };
    return then(item, reply);
  }
}

function then<T, R>(v: MaybePromise<T>, f: (t: T) => MaybePromise<R>): MaybePromise<R> {
  return v instanceof Promise ? v.then(f) : f(v);
}

