// The HTTP surface. A node:http server that never listens itself: the member's listeners
// hand it the connections whose first bytes are HTTP. It enforces limits (headers, body),
// answers Expect: 100-continue only for requests it will take, reads a body only when the
// endpoint needs one, and turns every failure into a status with an empty body and an
// X-Grid-Error reason. A request whose client vanishes mid-body is never applied. Bodies
// being received share one member-wide budget (BodyBudget): past it a new body gets 503.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type net from 'node:net';
import { GridError, describeError, isGridError } from '../core/errors.js';
import { BodyBudget, type BodyCharge } from './body-budget.js';
import type { RestDeps, SharedReads } from './context.js';
import { ConnectionState } from './connection-state.js';
import type { RestRequest, RestResponse } from './exchange.js';
import { Http1Connection, MAX_QUEUED_PER_CONNECTION, type Http1Host } from './http1-connection.js';
import { rawHeader } from './headers.js';
import { onGridPrefix, stripPrefix } from './paths.js';
import { sendEmpty } from './respond.js';
import { groupOfPath, resolveRoute, routeLabelOf, scopeOf, type Method, type Request, type Route } from './routes.js';
import { RequestStats, methodIndexOf, type RouteLabel } from './request-stats.js';
import { STATUS_OF } from './status.js';
import { crossSiteRefusal } from './cross-site.js';
import { endpointOf } from './route-dispatch.js';

const EMPTY = Buffer.alloc(0);
/** pino's numeric level of debug (Grid's FINE): requests are logged at or below it. */
const DEBUG_LEVEL = 20;

/** A connection served by node:http. */
class Connection extends ConnectionState {
  /** Reading paused because too many pipelined requests wait. */
  paused = false;
  /** drain() is running its loop (a nested call returns at once). */
  draining = false;

  constructor(readonly socket: net.Socket) {
    super();
  }
}

/** At most one INFO line per refusal code (queue full, PASSIVE, ...) in this interval. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/**
 * A body refused for the budget before it was read keeps its connection when it declared at
 * most this much: node reads and discards it (no memory kept) and the client's next request
 * follows. Anything larger, chunked, or behind Expect: 100-continue is answered with
 * `Connection: close` instead of being drained.
 */
const CHEAP_DRAIN_BYTES = 65_536;
const CONNECTION = Symbol('grid.connection');
type SocketWithConnection = net.Socket & { [CONNECTION]?: Connection };

function methodOf(m: string | undefined): Method | undefined {
  switch (m) {
    case 'GET':
    case 'HEAD':
    case 'POST':
    case 'DELETE':
      return m;
    case 'PUT':
      return 'POST';
    default:
      return undefined;
  }
}

/**
 * A browser request from another site is refused before anything runs (cross-site.ts). curl,
 * clients and benchmarks send neither header: two header scans and nothing else.
 */
function refuseCrossSite(req: RestRequest, m: Method, route: Route): void {
  const secFetchSite = rawHeader(req, 'sec-fetch-site');
  const origin = secFetchSite === undefined ? rawHeader(req, 'origin') : undefined;
  if (secFetchSite === undefined && origin === undefined) return;
  const safe = (m === 'GET' || m === 'HEAD') && endpointOf(route)?.changesOnGet !== true;
  const why = crossSiteRefusal({ secFetchSite, secFetchMode: rawHeader(req, 'sec-fetch-mode'), origin, host: rawHeader(req, 'host') }, safe);
  if (why !== undefined) throw new GridError('FORBIDDEN', why);
}

export class RestServer implements Http1Host {
  private readonly server: http.Server;
  private readonly maxBodyBytes: number;
  /** Bodies being received or handled, member-wide. */
  private readonly budget: BodyBudget;
  /** Set by close(): answers from now on carry `Connection: close`. */
  closing = false;
  /** Per refusal code: when it was last logged at INFO and how many came since. */
  private readonly refusals = new Map<string, { loggedAt: number; since: number }>();
  /** Open HTTP connections handed to this server (node:http's and Grid's own). */
  private readonly connections = new Set<Connection | Http1Connection>();
  /** Grid's own HTTP/1.1 path takes new connections (grid.rest.http-path). */
  private readonly fastPath: boolean;
  /** Grid's path reads its connections through the listener's shared read buffer (see listener.ts). */
  get ownReads(): boolean {
    return this.fastPath;
  }
  /** Checks the timeouts of Grid's own connections (node:http checks its own). */
  private sweep: NodeJS.Timeout | undefined;
  /** Connections taken by each path, and those Grid's path handed to node:http (grid_rest_http_*). */
  readonly pathCounts = { grid: 0, node: 0, handOffs: 0 };
  /** Request counts and latencies (undefined with metrics off: nothing is measured). */
  readonly requestStats: RequestStats | undefined;

  readonly sharedReads: SharedReads;

  constructor(private readonly deps: RestDeps) {
    this.sharedReads = deps.sharedReads;
    this.maxBodyBytes = deps.config.tuning.restMaxBodyBytes;
    this.fastPath = deps.config.tuning.restHttpPath === 'grid';
    this.budget = new BodyBudget(deps.config.tuning.restMaxBufferedBodyBytes);
    if (deps.metrics !== undefined) {
      this.requestStats = new RequestStats();
      this.requestStats.register(deps.metrics);
      const counts = this.pathCounts;
      deps.metrics.counter(
        { name: 'grid_rest_http_connections_total', help: 'HTTP connections taken by each HTTP path: Grid\'s own (grid) or node:http from the first byte (node)', labelNames: ['path'] },
        (report) => {
          report(counts.grid, { path: 'grid' });
          report(counts.node, { path: 'node' });
        },
      );
      deps.metrics.counter(
        { name: 'grid_rest_http_handoffs_total', help: 'HTTP connections Grid\'s own path handed to node:http at a request it does not take itself' },
        (report) => report(counts.handOffs),
      );
    }
    this.server = http.createServer({
      maxHeaderSize: deps.config.tuning.restMaxHeaderBytes,
      keepAlive: true,
      noDelay: true,
      // Time to receive a whole request (headers and body), not to answer it: long polls are unaffected.
      requestTimeout: 300_000,
      headersTimeout: 60_000,
      // A missing Host is refused in start(), in the error shape (node's own 400 has neither
      // Content-Length: 0 nor X-Grid-Error).
      requireHostHeader: false,
    });
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res, false));
    this.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res, true));
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => this.onClientError(err, socket));
    // Without these listeners node answers an unknown Expect with its own bare 417 and drops
    // a CONNECT without a word; both get the error shape instead.
    this.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      res.shouldKeepAlive = false;
      sendEmpty(res, 417, `unsupported Expect: ${rawHeader(req, 'expect') ?? ''} (only 100-continue)`, ['Connection', 'close']);
    });
    this.server.on('connect', (_req: IncomingMessage, socket: net.Socket) => {
      this.answerAndClose(socket, 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\nX-Grid-Error: method CONNECT is not supported\r\n\r\n', undefined);
    });
    // Grid's path checks its timeouts as often as node:http checks its own (and every second
    // for keep-alive), restarted whenever node's checker is (the 'listening' event).
    if (this.fastPath) this.server.on('listening', () => this.startSweep());
    // Connections arrive through emit('connection'); 'listening' starts node's own tracking
    // of them (header timeouts, closeAllConnections) although this server never listens.
    this.server.emit('listening');
  }

  private startSweep(): void {
    if (this.sweep !== undefined) clearInterval(this.sweep);
    const srv = this.server as http.Server & { connectionsCheckingInterval?: number };
    const every = Math.max(10, Math.min(1000, srv.connectionsCheckingInterval ?? 1000));
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const c of this.connections) if (c instanceof Http1Connection) c.checkTimeouts(now);
    }, every);
    this.sweep.unref();
  }

  accept(socket: net.Socket, head: Buffer): void {
    if (this.fastPath && !this.closing) {
      this.pathCounts.grid++;
      const conn = new Http1Connection(this, socket, head, this.deps.config.tuning.restMaxHeaderBytes);
      this.connections.add(conn);
      socket.once('close', () => this.connections.delete(conn));
      return;
    }
    this.pathCounts.node++;
    this.acceptNode(socket, head);
  }

  // ---------------------------------------------------------------- Http1Host (Grid's own path)

  /** Where Grid's path meets what it does not take itself: node:http parses from `rest` on. */
  handOff(conn: Http1Connection, rest: Buffer): void {
    this.connections.delete(conn);
    this.pathCounts.handOffs++;
    if (this.deps.logger.isLevelEnabled('debug')) {
      this.deps.logger.debug({ remote: conn.socket.remoteAddress, first: rest.toString('latin1', 0, Math.min(rest.length, 80)) }, 'HTTP connection handed to node:http');
    }
    this.acceptNode(conn.socket, rest);
  }

  keepAliveMs(): number {
    return this.server.keepAliveTimeout;
  }

  timeouts(): { headersMs: number; requestMs: number; keepAliveMs: number } {
    const s = this.server;
    return { headersMs: s.headersTimeout, requestMs: s.requestTimeout, keepAliveMs: s.keepAliveTimeout };
  }

  framingError(status: 408 | 400 | 431, reason: string): string {
    const text = status === 408 ? '408 Request Timeout' : status === 431 ? '431 Request Header Fields Too Large' : '400 Bad Request';
    return `HTTP/1.1 ${text}\r\nContent-Length: 0\r\nConnection: close\r\nX-Grid-Error: ${reason}\r\n\r\n`;
  }

  private acceptNode(socket: net.Socket, head: Buffer): void {
    const conn = new Connection(socket);
    this.connections.add(conn);
    socket.once('close', () => this.connections.delete(conn));
    (socket as SocketWithConnection)[CONNECTION] = conn;
    socket.unshift(head);
    this.server.emit('connection', socket);
    socket.resume();
  }

  /** Close idle keep-alive connections now and the rest once their answers are out. */
  close(): void {
    this.closing = true;
    if (this.sweep !== undefined) clearInterval(this.sweep);
    this.sweep = undefined;
    // Connections with an answer still to come close once it is out, not at keep-alive timeout.
    for (const conn of this.connections) {
      if (conn.current !== undefined && !conn.current.headersSent) conn.current.shouldKeepAlive = false;
      if (conn instanceof Http1Connection) conn.closeIfIdle();
    }
    this.server.closeIdleConnections();
    this.server.close();
  }

  closeAll(): void {
    for (const conn of this.connections) if (conn instanceof Http1Connection) conn.destroy();
    this.server.closeAllConnections();
  }

  /**
   * Bytes of request bodies held now against grid.rest.max-buffered-body-bytes: declared
   * lengths of bodies being received, chunked bodies as far as they arrived, and bodies whose
   * request is still being handled. 0 when no request with a body is in flight.
   */
  get bufferedBodyBytes(): number {
    return this.budget.usedBytes;
  }

  /**
   * Requests of one connection run one after the other, in the order they arrived: a
   * pipelined GET behind a POST sees the POST applied. node:http already answers in order;
   * this orders the work. A connection that is not pipelining never waits.
   */
  private onRequest(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void {
    // node:http's requests (on connections it took from the start or was handed).
    const conn = (req.socket as SocketWithConnection)[CONNECTION];
    if (conn !== undefined) conn.lastReq = req;
    if (conn === undefined) {
      this.start(req, res, expectsContinue, undefined);
    } else if (conn.busy) {
      conn.queue.push(() => this.start(req, res, expectsContinue, conn));
      if (conn.queue.length >= MAX_QUEUED_PER_CONNECTION) pauseReading(conn);
    } else {
      this.start(req, res, expectsContinue, conn);
    }
  }

  /**
   * Start the queued requests of an idle connection. A loop, not recursion: requests that
   * finish synchronously would otherwise nest one stack frame per queued request.
   */
  private drain(conn: Connection): void {
    if (conn.draining) return;
    conn.draining = true;
    try {
      while (!conn.busy) {
        const next = conn.queue.shift();
        if (next === undefined) break;
        next();
      }
    } finally {
      conn.draining = false;
    }
    if (conn.paused && conn.queue.length < MAX_QUEUED_PER_CONNECTION / 2) resumeReading(conn);
    if (!conn.busy && conn.queue.length === 0 && conn.pendingError !== undefined) this.sendPendingError(conn);
  }

  start(req: RestRequest, res: RestResponse, expectsContinue: boolean, conn: Connection | Http1Connection | undefined): void {
    const stats = this.requestStats;
    // Every request is logged at FINE (method, path, status, ms): checked once, so it costs nothing while FINE is off.
    const logged = this.deps.logger.levelVal <= DEBUG_LEVEL;
    const ex = new Exchange(this, req, res, conn, stats === undefined && !logged ? -1 : performance.now(), logged);
    if (conn !== undefined) {
      conn.busy = true;
      conn.current = res;
      conn.last = res;
    }
    if (this.closing) res.shouldKeepAlive = false;
    let route: Route;
    let charge: BodyCharge | undefined;
    /** The Content-Length of a body that is not chunked. */
    let declaredBytes: number | undefined;
    try {
      if (req.httpVersion === '1.1' && rawHeader(req, 'host') === undefined) {
        throw new GridError('BAD_REQUEST', 'HTTP/1.1 request without Host header');
      }
      const m = methodOf(req.method);
      if (m === undefined) throw new GridError('UNKNOWN_ENDPOINT', `method ${req.method ?? '?'} is not supported`);
      ex.method = m;
      const rest = stripPrefix(req.url ?? '');
      if (rest === undefined) throw new GridError('UNKNOWN_ENDPOINT', 'path must start with /grid/ or /hazelcast/');
      // One lookup in the route table gives the label, the claimed group and the route.
      const scope = scopeOf(rest, onGridPrefix(req.url ?? ''));
      if (stats !== undefined) ex.routeLabel = routeLabelOf(rest, scope);
      const coarse = groupOfPath(rest, scope);
      if (coarse !== undefined && !this.deps.enabledGroups.has(coarse)) {
        throw new GridError('GROUP_DISABLED', `endpoint group ${coarse} is disabled`);
      }
      route = resolveRoute(m, rest, scope);
      if (route.group !== coarse && !this.deps.enabledGroups.has(route.group)) {
        throw new GridError('GROUP_DISABLED', `endpoint group ${route.group} is disabled`);
      }
      refuseCrossSite(req, m, route);
      if (route.readsBody) {
        const declared = rawHeader(req, 'content-length');
        // node's parser refuses a request with both headers; a Transfer-Encoding body is charged as it arrives.
        if (declared !== undefined && rawHeader(req, 'transfer-encoding') === undefined) declaredBytes = Number(declared);
        if (declaredBytes !== undefined && declaredBytes > this.maxBodyBytes) {
          throw new GridError('PAYLOAD_TOO_LARGE', `body of ${declared} bytes exceeds grid.rest.max-body-bytes (${this.maxBodyBytes})`);
        }
        if (declaredBytes !== undefined && declaredBytes > this.budget.limitBytes) throw this.overWholeBudget(declaredBytes);
        charge = this.budget.open();
        // A declared body is reserved whole before anything is read (and before 100 Continue):
        // once taken, it never fails for the budget halfway.
        if (declaredBytes !== undefined && !charge.add(declaredBytes)) throw this.budgetFull();
      }
    } catch (e) {
      charge?.release();
      // Not taking this request: if its body was announced but not sent yet, close after
      // answering, unless it is a small body refused for the budget (node discards it unread).
      const drainable = isGridError(e) && e.code === 'BODY_BUDGET_FULL' && declaredBytes !== undefined && declaredBytes <= CHEAP_DRAIN_BYTES;
      this.fail(res, e, expectsContinue || (hasBody(req) && !drainable));
      ex.done();
      return;
    }
    if (expectsContinue) {
      // 100 Continue only invites a body this endpoint reads; otherwise answer and close.
      if (route.readsBody) res.writeContinue();
      else res.shouldKeepAlive = false;
    }
    if (charge === undefined) {
      this.run(route, ex);
      return;
    }
    // The body's bytes stay charged until its request is handled: they are in use until then.
    ex.charge = charge;
    if (req.wholeBody !== undefined) {
      // Grid's path had the whole (declared, charged) body with the head.
      ex.body = req.wholeBody;
      this.run(route, ex);
      return;
    }
    this.readBody(
      req,
      res,
      conn,
      charge,
      declaredBytes,
      (body) => {
        ex.body = body;
        this.run(route, ex);
      },
      () => ex.done(),
    );
  }

  private run(route: Route, ex: Exchange): void {
    try {
      const out = route.run(ex, this.deps);
      if (!(out instanceof Promise)) {
        ex.done();
        return;
      }
      out.then(
        () => ex.done(),
        (e: unknown) => {
          this.fail(ex.res, e, false);
          ex.done();
        },
      );
    } catch (e) {
      this.fail(ex.res, e, false);
      ex.done();
    }
  }

  /** @internal A request is over (answered, failed or abandoned): count it, log it, go on with its connection. */
  finishExchange(ex: Exchange): void {
    const { req, res, conn } = ex;
    const stats = this.requestStats;
    if (stats !== undefined) stats.record(ex.routeLabel, methodIndexOf(req.method), res.headersSent ? res.statusCode : 0, (performance.now() - ex.startedAt) / 1000);
    if (ex.logged) this.logRequest(req, res, performance.now() - ex.startedAt);
    if (conn === undefined) return;
    if (conn instanceof Http1Connection) {
      conn.requestDone();
      return;
    }
    conn.busy = false;
    conn.current = undefined;
    this.drain(conn);
  }

  /**
   * Read a body whose request took `charge`. A declared body is already charged whole and
   * copied into one buffer of its size as it arrives (no second copy at the end); a chunked
   * one is charged chunk by chunk and refused with 503 when the budget cannot hold the next.
   * `onAbandon` runs instead of `onBody` when the body is refused, fails or its client goes.
   */
  private readBody(
    req: RestRequest,
    res: RestResponse,
    conn: ConnectionState | undefined,
    charge: BodyCharge,
    declaredBytes: number | undefined,
    onBody: (body: Buffer) => void,
    onAbandon: () => void,
  ): void {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    /** The whole declared body, once it arrives in more than one chunk. */
    let whole: Buffer | undefined;
    let size = 0;
    let failed = false;
    /** Refuse the body mid-way: answer, close, keep nothing of it, discard the rest unread. */
    const refuse = (e: GridError): void => {
      failed = true;
      first = chunks = whole = undefined;
      this.fail(res, e, true);
      req.resume();
      onAbandon();
    };
    if (conn !== undefined) {
      // The parser died inside this body (malformed chunk, request timeout): it never completes.
      const abort = (): void => {
        const e = conn.bodyError;
        // The body that failed is the last request's: one parsed ahead of this one (pipelined)
        // answers the error in its own place once it starts, after this one's answer.
        if (failed || e === undefined || conn.lastReq !== req) return;
        failed = true;
        conn.abortBody = undefined;
        conn.pendingError = undefined; // answered here, in this request's place
        res.shouldKeepAlive = false;
        if (!res.headersSent) sendEmpty(res, e.status, e.reason, ['Connection', 'close']);
        onAbandon();
      };
      if (conn.bodyError !== undefined && !req.complete && conn.lastReq === req) {
        abort();
        return;
      }
      conn.abortBody = abort;
      req.once('end', () => {
        if (conn.abortBody === abort) conn.abortBody = undefined;
      });
    }
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      const at = size;
      size += chunk.length;
      if (declaredBytes !== undefined) {
        // The parser delivers exactly the declared length: no check, no charge, just a copy.
        if (at === 0 && chunk.length === declaredBytes) first = chunk;
        else chunk.copy((whole ??= Buffer.allocUnsafe(declaredBytes)), at);
        return;
      }
      if (size > this.maxBodyBytes) {
        refuse(new GridError('PAYLOAD_TOO_LARGE', `body exceeds grid.rest.max-body-bytes (${this.maxBodyBytes})`));
        return;
      }
      if (size > this.budget.limitBytes) {
        refuse(this.overWholeBudget(undefined));
        return;
      }
      if (!charge.add(chunk.length)) {
        refuse(this.budgetFull());
        return;
      }
      if (first === undefined) first = chunk;
      else (chunks ??= [first]).push(chunk);
    });
    req.once('end', () => {
      if (failed) return;
      // Only a complete body is ever applied; a client that vanishes mid-body never gets here.
      const body = whole ?? (chunks !== undefined ? Buffer.concat(chunks, size) : (first ?? EMPTY));
      first = chunks = whole = undefined;
      onBody(body);
    });
    // A client that vanishes mid-body frees the connection's turn and its budget (nothing is applied).
    req.once('close', () => {
      if (!req.complete && !failed) {
        failed = true;
        first = chunks = whole = undefined;
        onAbandon();
      }
    });
  }

  /** 503 for a body that would fit an empty budget but not the budget as it is now. */
  private budgetFull(): GridError {
    const b = this.budget;
    return new GridError(
      'BODY_BUDGET_FULL',
      `request bodies being received use the member's budget (${b.usedBytes} of ${b.limitBytes} bytes, ` +
        'grid.rest.max-buffered-body-bytes); retry later',
    );
  }

  /** 413 for a body that would not fit even an empty budget (set below max-body-bytes). */
  private overWholeBudget(declaredBytes: number | undefined): GridError {
    const what = declaredBytes === undefined ? 'body' : `body of ${declaredBytes} bytes`;
    return new GridError('PAYLOAD_TOO_LARGE', `${what} exceeds grid.rest.max-buffered-body-bytes (${this.budget.limitBytes})`);
  }

  /** Why a request failed, for its FINE line; only kept while FINE is on. */
  private readonly failReasons = new WeakMap<RestResponse, string>();

  private logRequest(req: RestRequest, res: RestResponse, elapsedMs: number): void {
    const status = res.headersSent ? res.statusCode : 0;
    const ms = Math.round(elapsedMs * 10) / 10;
    const reason = this.failReasons.get(res);
    this.deps.logger.debug(
      { method: req.method, path: req.url, status, ms, ...(reason !== undefined ? { reason } : {}) },
      `${req.method ?? '?'} ${req.url ?? '?'} ${status} ${ms} ms`,
    );
  }

  private fail(res: RestResponse, e: unknown, closeConnection: boolean): void {
    let status: number;
    let reason: string;
    if (isGridError(e)) {
      status = STATUS_OF[e.code];
      reason = e.message;
    } else {
      status = 500;
      reason = 'internal error';
    }
    if (status >= 500) {
      // Every 5xx is logged with its cause: unexpected ones as errors with their stack, other
      // 500s as warnings. 503 refusals (queue full, PASSIVE, shutting down) can come by the
      // thousand under load: each is logged at FINE, and at INFO at most once per code per
      // REFUSAL_LOG_INTERVAL_MS, with how many were refused since.
      if (!isGridError(e) || e.code === 'INTERNAL') {
        this.deps.logger.error({ status, err: describeError(e), stack: (e as Error)?.stack }, 'REST request failed');
      } else if (status === 500) {
        this.deps.logger.warn({ status, reason }, 'REST request failed');
      } else {
        this.deps.logger.debug({ status, reason }, 'REST request refused');
        this.logRefusalSummary(e.code, status, reason);
      }
    }
    if (res.destroyed || res.writableEnded) return;
    if (closeConnection) res.shouldKeepAlive = false;
    // The request's FINE line says why it failed (X-Grid-Error).
    if (this.deps.logger.isLevelEnabled('debug')) this.failReasons.set(res, reason);
    sendEmpty(res, status, reason, closeConnection ? ['Connection', 'close'] : undefined);
  }

  private logRefusalSummary(code: string, status: number, reason: string): void {
    const now = Date.now();
    const seen = this.refusals.get(code);
    if (seen !== undefined && now - seen.loggedAt < REFUSAL_LOG_INTERVAL_MS) {
      seen.since++;
      return;
    }
    const since = seen?.since ?? 0;
    this.refusals.set(code, { loggedAt: now, since: 0 });
    this.deps.logger.info(
      { status, code, reason, refusedSinceLastLine: since },
      `REST requests refused with ${status} (${code}): ${reason}` +
        (since > 0 ? ` (+${since} more since the last such line)` : ''),
    );
  }

  private onClientError(err: NodeJS.ErrnoException, socket: net.Socket): void {
    // A second parse error of bytes already refused finds the socket ending with its answer: left
    // to finish (over TLS the answer is still being encrypted and written; destroying drops it).
    if (err.code === 'ECONNRESET' || (!socket.writable && !socket.writableEnded)) {
      socket.destroy();
      return;
    }
    if (!socket.writable) return;
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const status = tooLarge ? '431 Request Header Fields Too Large' : timeout ? '408 Request Timeout' : '400 Bad Request';
    const reason = tooLarge
      ? `request line and headers exceed ${this.deps.config.tuning.restMaxHeaderBytes} bytes`
      : timeout
        ? 'request not received in time'
        : `malformed HTTP request (${err.code ?? 'parse error'})`;
    const answer = `HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\nX-Grid-Error: ${reason}\r\n\r\n`;
    this.answerAndClose(socket, answer, { status: Number(status.slice(0, 3)), reason });
  }

  private answerAndClose(socket: net.Socket, answer: string, bodyError: { status: number; reason: string } | undefined): void {
    const conn = (socket as SocketWithConnection)[CONNECTION];
    if (conn !== undefined && bodyError !== undefined && conn.lastReq !== undefined && !conn.lastReq.complete) {
      conn.bodyError = bodyError;
      conn.pendingError = answer; // sent raw if that request turns out not to read its body
      conn.abortBody?.();
      if (conn.pendingError === undefined) return;
    }
    if (conn !== undefined && (conn.busy || conn.queue.length > 0)) {
      // Good requests before the bad one are still being answered: they go first, in order.
      conn.pendingError = answer;
      return;
    }
    if (conn !== undefined && conn.last !== undefined && !conn.last.writableFinished) {
      conn.pendingError = answer;
      this.sendPendingError(conn);
      return;
    }
    socket.end(answer);
    socket.destroySoon();
  }

  /** Send a deferred parse-error answer after the last real answer is out, then close. */
  private sendPendingError(conn: Connection): void {
    const answer = conn.pendingError;
    if (answer === undefined) return;
    let sent = false;
    const write = (): void => {
      if (sent) return;
      sent = true;
      conn.pendingError = undefined;
      if (conn.socket.writable) conn.socket.end(answer);
      conn.socket.destroySoon();
    };
    const last = conn.last;
    if (last === undefined || last.writableFinished || last.destroyed) write();
    else {
      last.once('finish', write);
      last.once('close', write);
    }
  }

}

/**
 * One request being worked on: the route's context (its request, response, method and body)
 * and its completion, in one object (the hot path allocates no closures for it).
 */
class Exchange implements Request {
  method: Method = 'GET';
  body: Buffer = EMPTY;
  routeLabel: RouteLabel = 'unknown';
  /** The body's share of the member's budget, released when the request is over. */
  charge: BodyCharge | undefined;
  private finished = false;

  constructor(
    private readonly server: RestServer,
    readonly req: RestRequest,
    readonly res: RestResponse,
    readonly conn: Connection | Http1Connection | undefined,
    /** performance.now() at the start (-1: nothing measures it). */
    readonly startedAt: number,
    readonly logged: boolean,
  ) {}

  /** The request is over; the first call counts. */
  done(): void {
    if (this.finished) return;
    this.finished = true;
    this.charge?.release();
    this.server.finishExchange(this);
  }
}

function hasBody(req: RestRequest): boolean {
  const len = rawHeader(req, 'content-length');
  return (len !== undefined && len !== '0') || rawHeader(req, 'transfer-encoding') !== undefined;
}

/** node's own pipelining pause (socket._paused + parser.pause): plain socket.pause() is undone by node. */
function pauseReading(conn: Connection): void {
  const s = conn.socket as net.Socket & { _paused?: boolean; parser?: { pause(): void } | null };
  conn.paused = true;
  if (s._paused === true) return;
  s._paused = true;
  s.pause();
  s.parser?.pause();
}

function resumeReading(conn: Connection): void {
  const s = conn.socket as net.Socket & { _paused?: boolean; parser?: { resume(): void } | null };
  conn.paused = false;
  s._paused = false;
  s.parser?.resume();
  s.resume();
}
