// The client protocol side of a member: takes over `CP2` connections from the port's listener,
// keeps them, and pushes the members and partitions views to the connections that listen for
// them whenever a version changed (checked on a short timer, cheap: two integer compares per
// listening connection).

import { createHash } from 'node:crypto';
import type net from 'node:net';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { ClientConnection } from './client-connection.js';
import type { ClientDeps, ClientRouting } from './client-deps.js';

/** How often the views' versions are compared with what each listener was sent, and silent connections looked for. */
const VIEW_CHECK_INTERVAL_MS = 250;
/**
 * A connection that has read nothing for this long is closed (Hazelcast's
 * hazelcast.client.max.no.heartbeat.seconds, 60 s): an idle client pings every 5 s, so only a
 * dead peer or one that never authenticates stays this silent.
 */
export const CLIENT_SILENCE_TIMEOUT_MS = 60_000;

/** Addresses remembered as already warned about a refused authentication; past this many, the memory starts again. */
const REFUSED_ADDRESSES_KEPT = 4096;

export class ClientServer {
  private readonly connections = new Set<ClientConnection>();
  private readonly refusedAddresses = new Set<string>();
  /** Keyed map requests of every connection, and those forwarded to another member (grid_client_keyed_requests_*). */
  readonly routing: ClientRouting = { keyed: 0, forwarded: 0, requests: 0 };
  private readonly timer: TimerHandle;
  private stopped = false;

  constructor(
    private readonly deps: Omit<ClientDeps, 'onClosed' | 'firstRefusalFrom' | 'routing'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly silenceTimeoutMs = CLIENT_SILENCE_TIMEOUT_MS,
  ) {
    this.timer = clock.setInterval(() => this.tick(), VIEW_CHECK_INTERVAL_MS);
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  accept(socket: net.Socket, head: Buffer): void {
    if (this.stopped) {
      socket.destroy();
      return;
    }
    const c: ClientConnection = new ClientConnection(socket, { ...this.deps, routing: this.routing, onClosed: () => this.connections.delete(c), firstRefusalFrom: (a) => this.firstRefusalFrom(a) }, this.logger, () => this.clock.now());
    this.connections.add(c);
    c.start(head);
  }

  private firstRefusalFrom(address: string): boolean {
    if (this.refusedAddresses.has(address)) return false;
    // Bounded: a scan from many addresses costs a repeated warning, never unbounded memory.
    if (this.refusedAddresses.size >= REFUSED_ADDRESSES_KEPT) this.refusedAddresses.clear();
    this.refusedAddresses.add(address);
    return true;
  }

  pushViews(): void {
    for (const c of this.connections) c.pushViews();
  }

  private tick(): void {
    for (const c of this.connections) {
      if (c.silentForMs() > this.silenceTimeoutMs) {
        this.logger.warn({ client: c.name }, `client connection closed: nothing read for ${this.silenceTimeoutMs} ms`);
        this.connections.delete(c);
        c.close();
      }
    }
    this.pushViews();
  }

  /** Close every client connection (the clients reconnect elsewhere). */
  stop(): void {
    this.stopped = true;
    this.timer.cancel();
    for (const c of this.connections) c.close();
    this.connections.clear();
  }
}

/** A name-based UUID (version 5 layout over SHA-1): the same text gives the same UUID on every member. */
export function nameUuid(text: string): string {
  const h = createHash('sha1').update(text, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
