// A small HTTP client for the admin commands: one request per connection (nothing keeps the
// process alive afterwards), a connect timeout and an answer timeout, the whole body read.
// It knows the member's REST conventions only as far as `X-Grid-Error`; the commands decide
// what an answer means.

import http from 'node:http';
import https from 'node:https';
import { CliError, EXIT, connectionError, type ConnectionFailure } from './outcome.js';
import { tlsFailure, tlsRequestOptions, type TlsClientSettings } from './tls-settings.js';
import type { MemberAddress, Prefix } from './settings.js';

/** How long the TCP connection may take before the member counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;

export interface Reply {
  readonly status: number;
  readonly statusText: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** The member's `X-Grid-Error`, when it sent one. */
  readonly reason: string | undefined;
}

export interface RequestOptions {
  readonly body?: string | Buffer;
  /** Sent with a body; none when undefined. */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Answer timeout of this request (ms); `undefined` = the client's; 0 = none (a lock that waits). */
  readonly timeoutMs?: number;
}

export class RestClient {
  constructor(
    private readonly opts: {
      readonly address: MemberAddress;
      readonly addressSource: string;
      readonly prefix: Prefix;
      readonly timeoutMs: number;
      readonly userAgent: string;
      readonly tls?: TlsClientSettings | undefined;
    },
  ) {
    this.tlsOptions = opts.tls === undefined ? undefined : tlsRequestOptions(opts.tls);
  }

  private readonly tlsOptions: ReturnType<typeof tlsRequestOptions> | undefined;

  /** `path` is after the prefix (`rest/maps/m/k`), already percent-encoded. */
  request(method: 'GET' | 'POST' | 'DELETE', path: string, o: RequestOptions = {}): Promise<Reply> {
    const { address, prefix } = this.opts;
    const headers: Record<string, string> = { 'User-Agent': this.opts.userAgent, Accept: '*/*', ...(o.headers ?? {}) };
    if (o.body !== undefined) {
      headers['Content-Length'] = String(Buffer.byteLength(o.body));
      if (o.contentType !== undefined) headers['Content-Type'] = o.contentType;
    } else if (method === 'POST') {
      headers['Content-Length'] = '0';
    }
    const timeoutMs = o.timeoutMs ?? this.opts.timeoutMs;
    return new Promise<Reply>((resolve, reject) => {
      let connected = false;
      let settled = false;
      let answerTimer: NodeJS.Timeout | undefined;
      const fail = (f: Omit<ConnectionFailure, 'connected'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(answerTimer);
        req.destroy();
        const tlsText = tlsFailure(f.code, f.message, this.tlsOptions !== undefined);
        reject(tlsText !== undefined ? new CliError(EXIT.CONNECTION, `${address.display}: ${tlsText}`) : connectionError(address.display, this.opts.addressSource, { ...f, connected }));
      };
      const target = { host: address.host, port: address.port, method, path: `/${prefix}/${path}`, headers, agent: false as const };
      const onResponse = (res: http.IncomingMessage): void => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', (e: NodeJS.ErrnoException) => fail({ code: e.code, message: e.message }));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(answerTimer);
          const reason = res.headers['x-grid-error'];
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks),
            reason: typeof reason === 'string' && reason.length > 0 ? reason : undefined,
          });
        });
      };
      const req = this.tlsOptions === undefined ? http.request(target, onResponse) : https.request({ ...target, ...this.tlsOptions }, onResponse);
      const connectTimer = setTimeout(() => fail({ code: 'ETIMEDOUT', message: 'connect timeout', timedOutMs: CONNECT_TIMEOUT_MS }), CONNECT_TIMEOUT_MS);
      req.on('socket', (socket) => {
        socket.once('connect', () => {
          connected = true;
          clearTimeout(connectTimer);
          if (timeoutMs > 0) answerTimer = setTimeout(() => fail({ code: 'ETIMEDOUT', message: 'answer timeout', timedOutMs: timeoutMs }), timeoutMs);
        });
      });
      req.on('error', (e: NodeJS.ErrnoException) => fail({ code: e.code, message: e.message }));
      req.end(o.body);
    });
  }
}
