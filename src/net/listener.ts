// One TCP listener per port. The first bytes of each connection decide its protocol: the
// member protocol goes to the registered member handler, Hazelcast's client protocol (`CP2`)
// to the client handler, HTTP to the REST server (or is closed when this port serves no REST).
// Counts open connections of each kind.

import net from 'node:net';
import { GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { PortConfig } from '../config/types.js';
import { classifyHead } from '../protocol/preamble.js';

/** How long a new connection may stay silent before it is closed. */
const FIRST_BYTE_TIMEOUT_MS = 60_000;

export interface ConnectionSink {
  /** Take over a socket whose first bytes (already read) are `head`. */
  accept(socket: net.Socket, head: Buffer): void;
  /**
   * The sink reads its HTTP or client-protocol connections through setReadSink() (one read
   * buffer shared by all of them, node's `onread`) when the socket allows it: see takeOverReads().
   */
  readonly ownReads?: boolean;
}

/** Where the reads of a socket taken over by takeOverReads() go (valid only until the call returns). */
export type ReadSink = (bytes: Buffer) => void;
const READ_SINK = Symbol('grid.readSink');
type OwnReadSocket = net.Socket & { [READ_SINK]?: ReadSink | null };

/**
 * Every taken-over socket reads into this one buffer: a read's bytes are handed to its sink
 * and must be consumed or copied before it returns (reads run one at a time), so no read
 * allocates memory of its own (node allocates an ArrayBuffer per read otherwise, which young
 * collections then sweep one by one).
 */
const SHARED_READ_BUFFER = Buffer.allocUnsafeSlow(65_536);

/**
 * Give the connection of `old` (its TCP handle) a new socket object that reads with node's
 * `onread` into SHARED_READ_BUFFER; `old` lets go of the handle and is discarded. Undefined
 * (and `old` untouched) when the socket has no such handle.
 */
function takeOverReads(old: net.Socket): net.Socket | undefined {
  const holder = old as unknown as { _handle?: { useUserBuffer?: unknown } | null };
  const handle = holder._handle;
  if (handle === undefined || handle === null || typeof handle.useUserBuffer !== 'function' || old.destroyed) return undefined;
  old.pause();
  old.removeAllListeners();
  holder._handle = null;
  // Without a handle, destroying only ends the object (the server stops counting it).
  old.destroy();
  const socket: OwnReadSocket = new net.Socket({
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: SHARED_READ_BUFFER,
      callback: (n: number, buf: Uint8Array): void => {
        const sink = socket[READ_SINK];
        const bytes = (buf as Buffer).subarray(0, n);
        // No sink (yet, or any more): the bytes go the ordinary stream way, copied.
        if (sink === undefined || sink === null) socket.push(Buffer.from(bytes));
        else sink(bytes);
      },
    },
  } as net.SocketConstructorOpts);
  socket[READ_SINK] = null; // marks it taken over (setReadSink)
  socket.setNoDelay(true);
  return socket;
}

/**
 * Send the reads of a socket taken over by the Listener to `sink` (undefined: back to the
 * socket's 'data' events, copied). False when `socket` was not taken over: read it with 'data'.
 */
export function setReadSink(socket: net.Socket, sink: ReadSink | undefined): boolean {
  const s = socket as OwnReadSocket;
  if (s[READ_SINK] === undefined) return false;
  s[READ_SINK] = sink ?? null;
  return true;
}

/** Whether the reads of `bytes` are in the shared read buffer (to be copied before they are kept). */
export function inSharedReadBuffer(bytes: Uint8Array): boolean {
  return bytes.buffer === SHARED_READ_BUFFER.buffer;
}

/** The server side of TLS on a port: completes the handshake and hands over the decrypted socket. */
export interface TlsAcceptor {
  accept(raw: net.Socket, head: Buffer, secure: (socket: net.Socket) => void): void;
}

export interface ConnectionCounts {
  http: number;
  member: number;
  client: number;
}

export class Listener {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Told when the last tracked socket closes (every close() call waiting for it). */
  private readonly drainWaiters: (() => void)[] = [];
  readonly counts: ConnectionCounts = { http: 0, member: 0, client: 0 };
  private boundPort = 0;

  constructor(
    private readonly deps: {
      host: string;
      logger: Logger;
      http: ConnectionSink | undefined;
      member: ConnectionSink | undefined;
      /** Hazelcast's client protocol; undefined: such connections are closed. */
      client?: ConnectionSink | undefined;
      /** What to do with an HTTP connection when `http` is undefined. */
      onRefusedHttp?: (socket: net.Socket) => void;
      /** With ssl on this port: every connection is TLS first (tls/tls-endpoint.ts), then detected as usual. */
      tls?: TlsAcceptor;
    },
  ) {
    this.server = net.createServer({ noDelay: true }, (socket) => this.onConnection(socket));
  }

  get port(): number {
    return this.boundPort;
  }

  /** Bind `config.port`, trying the next ones when taken and auto-increment is on. */
  async listen(config: PortConfig): Promise<number> {
    const last = config.autoIncrement ? config.port + Math.max(1, config.portCount) - 1 : config.port;
    let lastError: unknown;
    for (let port = config.port; port <= Math.min(last, 65535); port++) {
      try {
        await this.tryListen(port);
        const addr = this.server.address();
        this.boundPort = typeof addr === 'object' && addr !== null ? addr.port : port;
        return this.boundPort;
      } catch (e) {
        lastError = e;
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EADDRINUSE' && code !== 'EACCES') break;
        this.deps.logger.debug({ port }, 'port taken, trying the next one');
      }
    }
    const range = last > config.port ? `${config.port}-${last}` : String(config.port);
    throw new GridError('CONFLICT', `cannot bind ${this.deps.host}:${range}: ${(lastError as Error)?.message ?? 'unknown error'}`, {
      cause: lastError,
    });
  }

  /** Stop accepting; with `destroy`, close open connections too. Resolves once every connection is closed. */
  async close(destroy: boolean): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (destroy) for (const s of this.sockets) s.destroy();
    await closed;
    // Connections taken over for shared-buffer reads are not the server's any more: wait for them too.
    if (this.sockets.size > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  private tryListen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => {
        this.server.off('listening', onListening);
        reject(e);
      };
      const onListening = (): void => {
        this.server.off('error', onError);
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen({ port, host: this.deps.host, exclusive: true });
    });
  }

  private onConnection(socket: net.Socket): void {
    this.track(socket);
    socket.on('error', () => {
      // Errors on a connection not yet handed over (resets) only close it.
    });
    const tls = this.deps.tls;
    if (tls === undefined) {
      this.readHead(socket, (kind, head) => this.hand(socket, kind, head));
      return;
    }
    this.readFirst(socket, (hello) => {
      tls.accept(socket, hello, (secure) => {
        this.track(secure);
        secure.on('error', () => undefined);
        this.readHead(secure, (kind, inner) => this.hand(secure, kind, inner));
      });
    });
  }

  /** The first chunk of `socket` (with ssl on: the TLS handshake's first bytes). */
  private readFirst(socket: net.Socket, then: (head: Buffer) => void): void {
    const silent = this.silentCloser(socket);
    socket.once('data', (head: Buffer) => {
      socket.setTimeout(0);
      socket.off('timeout', silent);
      socket.pause();
      then(head);
    });
  }

  /** The first bytes of `socket`, until they name the protocol (`C`, `CP` wait for a third byte). */
  private readHead(socket: net.Socket, then: (kind: 'member' | 'http' | 'client', head: Buffer) => void): void {
    const silent = this.silentCloser(socket);
    let head: Buffer | undefined;
    const onData = (chunk: Buffer): void => {
      head = head === undefined ? chunk : Buffer.concat([head, chunk]);
      const kind = classifyHead(head);
      if (kind === undefined) return;
      socket.off('data', onData);
      socket.setTimeout(0);
      socket.off('timeout', silent);
      socket.pause();
      then(kind, head);
    };
    socket.on('data', onData);
  }

  /** A connection that never says anything is closed rather than held forever. */
  private silentCloser(socket: net.Socket): () => void {
    const silent = (): void => {
      socket.destroy();
    };
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, silent);
    return silent;
  }

  /** Hand the socket to the sink of its protocol. */
  private hand(socket: net.Socket, kind: 'member' | 'http' | 'client', head: Buffer): void {
    const sink = kind === 'member' ? this.deps.member : kind === 'client' ? this.deps.client : this.deps.http;
    if (sink === undefined) {
      if (kind === 'http' && this.deps.onRefusedHttp) this.deps.onRefusedHttp(socket);
      else this.deps.logger.debug({ remote: socket.remoteAddress }, `${kind} connection refused: not served on this port`);
      socket.destroy();
      return;
    }
    let served = socket;
    // A TLS socket's reads are decrypted by node: only plain TCP handles read into the shared buffer.
    // The member protocol keeps its 'data' events (member-net reads them).
    if (kind !== 'member' && sink.ownReads === true && this.deps.tls === undefined) {
      const taken = takeOverReads(socket);
      if (taken !== undefined) {
        this.sockets.delete(socket);
        served = taken;
        this.track(taken);
        taken.on('error', () => undefined);
      }
    }
    this.counts[kind]++;
    served.once('close', () => this.counts[kind]--);
    sink.accept(served, head);
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      if (this.sockets.size === 0) for (const resolve of this.drainWaiters.splice(0)) resolve();
    });
  }
}
