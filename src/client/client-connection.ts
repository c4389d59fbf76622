// One connection of a Hazelcast client (after its `CP2` header): decodes messages inside the
// connection's error boundary, authenticates, answers the client-service messages, and runs
// map, queue and CP atomic long requests through the same facades REST uses, so each runs on its key's owner
// whatever member the client sent it to. Every request gets an answer (a result or Hazelcast's
// error frame); a malformed frame closes this connection only.

import type net from 'node:net';
import { describeError, GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { MaybePromise } from '../core/maybe-promise.js';
import { AuthStatus, decodeAuthRequest, encodeAuthResponse, type AuthStatusCode } from './auth-codec.js';
import { decideClientAuth } from './client-auth.js';
import { MessageBuilder, requestHeader, writeUuid, type RequestHeader } from './codec.js';
import { encodeMembersView, encodePartitionsView } from './cluster-view-codec.js';
import { dataOfStored, keyOf } from './data.js';
import { keyDataOf, partitionIdOfKey } from '../map/map-service.js';
import { decodeMapRequest } from './map-codecs.js';
import { serveMapRequest } from './map-requests.js';
import { dataListResponse, decodeMapViewRequest, entryListResponse, type MapViewRequest } from './map-view-codecs.js';
import { encodeError, ErrorCode, holder, holderOf } from './error-codec.js';
import { encodeMessage, FrameReader, type ClientMessage } from './frame.js';
import { HAZELCAST_COMPAT_VERSION, MessageId } from './message-ids.js';
import { boolResponse, decodeDataRequest, emptyResponse, intResponse, storedValueResponseBytes, uuidResponse, type DataRequest } from './request-codecs.js';
import { decodeQueueRequest } from './queue-codecs.js';
import { serveQueue, type ClientChannel } from './queue-requests.js';
import { decodeAtomicLongRequest } from './atomic-long-codecs.js';
import { serveAtomicLong } from './atomic-long-requests.js';
import type { ClientDeps } from './client-deps.js';
import { ClientListeners } from './client-listeners.js';
import { decodeAddEntryListener, decodeRemoveEntryListener, isListenerMessage, ListenerMessageId } from './listener-codecs.js';

/**
 * Answers waiting in the socket's write buffer beyond which this connection stops reading
 * (resumed on 'drain'): a client that pipelines requests without reading its answers is held
 * back rather than growing the member's memory.
 */
const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

/**
 * Unsent bytes beyond which entry events to this connection are dropped (a listener that does
 * not keep up never grows the member's memory or slows the writers; Hazelcast drops events when
 * its event queue is full too).
 */
const MAX_EVENT_BACKLOG_BYTES = 16 * 1024 * 1024;

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
  /** What the queue requests use of this connection (queue-requests.ts). */
  private readonly channel: ClientChannel = {
    alive: () => !this.closed && !this.socket.destroyed,
    onClose: (fn) => {
      this.onClose.add(fn);
      return () => this.onClose.delete(fn);
    },
    sendWritten: (b, written) => this.send(b, written),
    sent: SENT,
  };
  /** Entry listeners registered on this connection (made at the first). */
  private listeners: ClientListeners | undefined;
  /** Entry events of this turn, written together at its end (one socket write for many events). */
  private events: Buffer[] = [];
  /** Events dropped for a full backlog (logged once per burst). */
  private droppedEvents = 0;

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
      this.listeners?.close();
    });
    // A socket the listener took over reads into its shared buffer (no allocation per read):
    // the frame reader copies what it keeps, so nothing outlives the read.
    if (this.deps.setReadSink?.(this.socket, (bytes) => this.feed(bytes)) !== true) this.socket.on('data', (chunk: Buffer) => this.feed(chunk));
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
    this.deps.routing.requests++;
    let answer: MaybePromise<MessageBuilder | Buffer>;
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

  private send(b: MessageBuilder | Buffer, written?: (ok: boolean) => void): void {
    if (b === SENT) return;
    if (this.closed || this.socket.destroyed || !this.socket.writable) {
      written?.(false);
      return;
    }
    const bytes = b instanceof MessageBuilder ? encodeMessage(b.frames) : b;
    if (written === undefined) this.socket.write(bytes);
    else this.socket.write(bytes, (err) => written(err === undefined || err === null));
    if (this.socket.writableLength > MAX_UNSENT_BYTES && !this.socket.isPaused()) {
      this.socket.pause();
      this.socket.once('drain', () => {
        if (!this.closed) this.socket.resume();
      });
    }
  }

  /** A response as frames, or (the hot get) already encoded. */
  private answer(h: RequestHeader, m: ClientMessage): MaybePromise<MessageBuilder | Buffer> {
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
    if (isListenerMessage(h.type)) return this.listenerRequest(h, m);
    const mapReq = decodeMapRequest(h.type, m);
    if (mapReq !== undefined) {
      if ('key' in mapReq) this.countRouting(mapReq.key);
      return serveMapRequest(this.deps.maps, h.type, h.correlationId, mapReq);
    }
    const q = decodeQueueRequest(h.type, m);
    if (q !== undefined) return serveQueue(h, q, this.deps.queues, this.channel);
    const al = decodeAtomicLongRequest(h.type, m);
    if (al !== undefined) return serveAtomicLong(h, al, this.deps.cp);
    const view = decodeMapViewRequest(h.type, m);
    if (view !== undefined) return this.serveView(h, view);
    const req = decodeDataRequest(h.type, m);
    if (req === undefined) {
      throw new GridError('UNSUPPORTED', `client message type 0x${h.type.toString(16).padStart(6, '0')} is not supported by Grid yet`);
    }
    return this.serve(h, req);
  }

  private authenticate(h: RequestHeader, m: ClientMessage): MessageBuilder {
    const req = decodeAuthRequest(m);
    const decision = decideClientAuth(req, this.deps.clusterName, this.deps.credentials);
    const status: AuthStatusCode = decision.status;
    if (decision.status !== AuthStatus.AUTHENTICATED) {
      // Once per client address at WARN (a client retries every few seconds), later ones at FINE; never the password.
      const remote = this.socket.remoteAddress ?? 'unknown';
      const fields = { remote, client: req.clientName, clientType: req.clientType };
      const message = `client authentication refused: ${decision.reason}`;
      if (this.deps.firstRefusalFrom(remote)) this.log.warn(fields, message);
      else this.log.debug(fields, message);
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
    this.log.info(
      { remote: this.socket.remoteAddress, client: req.clientName, clientType: req.clientType, clientVersion: req.clientVersion, ...(req.username !== null ? { user: req.username } : {}) },
      'client authenticated',
    );
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

  private listenerRequest(h: RequestHeader, m: ClientMessage): MaybePromise<MessageBuilder> {
    const listeners = (this.listeners ??= new ClientListeners(this.deps.events, (b) => this.sendEvent(b), this.log));
    if (h.type === ListenerMessageId.MapRemoveEntryListener) return boolResponse(h.type, h.correlationId, listeners.remove(decodeRemoveEntryListener(m).registrationId));
    const req = decodeAddEntryListener(h.type, m);
    return listeners.add(h.correlationId, req).then((id) => uuidResponse(h.type, h.correlationId, (buf, at) => writeUuid(buf, at, id)));
  }

  private sendEvent(b: MessageBuilder): void {
    if (this.closed) return;
    if (this.socket.writableLength > MAX_EVENT_BACKLOG_BYTES) {
      if (this.droppedEvents++ === 0) this.log.warn({ client: this.clientName }, `entry events to client ${this.clientName} dropped: it reads them slower than they come (${MAX_EVENT_BACKLOG_BYTES} bytes unsent)`);
      return;
    }
    this.droppedEvents = 0;
    if (this.events.length === 0) setImmediate(() => this.flushEvents());
    this.events.push(encodeMessage(b.frames));
  }

  private flushEvents(): void {
    const events = this.events;
    this.events = [];
    if (this.closed || this.socket.destroyed || !this.socket.writable || events.length === 0) return;
    this.socket.write(events.length === 1 ? events[0]! : Buffer.concat(events));
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

  private serve(h: RequestHeader, r: DataRequest): MaybePromise<MessageBuilder | Buffer> {
    const { type, correlationId: corr } = h;
    const { maps } = this.deps;
    if (r.kind === 'map.get' || r.kind === 'map.containsKey' || r.kind === 'map.delete') this.countRouting(r.key);
    switch (r.kind) {
      case 'map.get':
        // Encoded straight into the bytes that are sent: no frame objects, no Data buffer in between.
        return then(maps.get(r.name, keyOf(r.key)), (v) => storedValueResponseBytes(type, corr, v?.value, v?.contentType));
      case 'map.containsKey':
        return then(maps.get(r.name, keyOf(r.key)), (v) => boolResponse(type, corr, v !== undefined));
      case 'map.delete':
        return then(maps.remove(r.name, keyOf(r.key)), () => emptyResponse(type, corr));
      case 'map.size':
        return maps.size(r.name).then((n) => intResponse(type, corr, n));
      case 'map.isEmpty':
        return maps.size(r.name).then((n) => boolResponse(type, corr, n === 0));
      case 'map.clear':
        return maps.clear(r.name).then(() => emptyResponse(type, corr));
    }
  }

  /**
   * Smart routing's effect, measured: a keyed request whose key's partition (where the map runs
   * it) another member owns is forwarded there. A malformed key is refused anyway.
   */
  private countRouting(data: Buffer): void {
    let pid: number;
    try {
      pid = partitionIdOfKey(keyOf(data));
    } catch {
      return;
    }
    const routing = this.deps.routing;
    routing.keyed++;
    if (this.deps.ownerOf(pid) !== this.deps.localUuid()) routing.forwarded++;
  }

  /** keySet, values, entrySet: the whole map by scan pages (docs/data-api.md), values mapped as for get. */
  private serveView(h: RequestHeader, r: MapViewRequest): Promise<MessageBuilder> {
    const { type, correlationId: corr } = h;
    return this.deps.maps.scanAll(r.name, r.kind !== 'map.keySet').then((entries) => {
      if (r.kind === 'map.keySet') return dataListResponse(type, corr, entries.map((e) => keyDataOf(e.key)));
      if (r.kind === 'map.values') return dataListResponse(type, corr, entries.map((e) => dataOfStored(e.value ?? '', e.contentType)));
      return entryListResponse(type, corr, entries.map((e) => [keyDataOf(e.key), dataOfStored(e.value ?? '', e.contentType)] as const));
    });
  }
}

function then<T, R>(v: MaybePromise<T>, f: (t: T) => MaybePromise<R>): MaybePromise<R> {
  return v instanceof Promise ? v.then(f) : f(v);
}

