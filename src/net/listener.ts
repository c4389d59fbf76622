// One TCP listener per port. The first byte of each connection decides its protocol: the
// member protocol goes to the registered member handler, HTTP to the REST server (or is
// closed when this port serves no REST). Counts open connections of each kind.

import net from 'node:net';
import { GridError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { PortConfig } from '../config/types.js';
import { classifyFirstByte } from '../protocol/preamble.js';

/** How long a new connection may stay silent before it is closed. */
const FIRST_BYTE_TIMEOUT_MS = 60_000;

export interface ConnectionSink {
  /** Take over a socket whose first bytes (already read) are `head`. */
  accept(socket: net.Socket, head: Buffer): void;
}

export interface ConnectionCounts {
  http: number;
  member: number;
}

export class Listener {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  readonly counts: ConnectionCounts = { http: 0, member: 0 };
  private boundPort = 0;

  constructor(
    private readonly deps: {
      host: string;
      logger: Logger;
      http: ConnectionSink | undefined;
      member: ConnectionSink | undefined;
      /** What to do with an HTTP connection when `http` is undefined. */
      onRefusedHttp?: (socket: net.Socket) => void;
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

  /** Stop accepting; with `destroy`, close open connections too. */
  async close(destroy: boolean): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (destroy) for (const s of this.sockets) s.destroy();
    await closed;
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
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => {
      // Errors on a connection not yet handed over (resets) only close it.
    });
    // A connection that never says anything is closed rather than held forever.
    const silent = (): void => {
      socket.destroy();
    };
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, silent);
    socket.once('data', (head: Buffer) => {
      socket.setTimeout(0);
      socket.off('timeout', silent);
      socket.pause();
      const kind = classifyFirstByte(head[0] ?? 0);
      const sink = kind === 'member' ? this.deps.member : this.deps.http;
      if (sink === undefined) {
        if (kind === 'http' && this.deps.onRefusedHttp) this.deps.onRefusedHttp(socket);
        else this.deps.logger.debug({ remote: socket.remoteAddress }, `${kind} connection refused: not served on this port`);
        socket.destroy();
        return;
      }
      this.counts[kind]++;
      socket.once('close', () => this.counts[kind]--);
      sink.accept(socket, head);
    });
  }
}
