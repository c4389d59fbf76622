// One `ssl` config at run time: the server side of a TLS port (handshake, then the listener
// detects HTTP or the member protocol inside), the client side of member and WAN dials, and
// rotation (reload on demand, on SIGHUP and when the files change, keeping the old material
// when the new files are broken). New connections take the new certificate; open ones keep
// theirs, so no request is dropped.

import { watch, type FSWatcher } from 'node:fs';
import net from 'node:net';
import { dirname, basename } from 'node:path';
import tls from 'node:tls';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { SslConfig } from '../../config/index.js';
import { loadTlsMaterial, type TlsMaterial } from './tls-material.js';

/** The first byte of a TLS handshake record: anything else on a TLS port is plain text. */
const TLS_HANDSHAKE = 0x16;
/** How long a TLS handshake may take before the connection is closed. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** File events within this window are one change (cert-manager swaps a symlink, editors write twice). */
const WATCH_DEBOUNCE_MS = 300;
/** The answer to plain HTTP on a TLS port: clear, and the connection closes. */
const PLAIN_HTTP_ANSWER = (() => {
  const body = 'This port speaks TLS: use https:// (curl --cacert ca.pem https://host:port/...)\n';
  return Buffer.from(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
})();

export type ReloadOutcome = { readonly changed: boolean; readonly subject: string; readonly notAfter: string } | { readonly error: string };

/**
 * Says each thing once per peer address (bounded: the oldest addresses are forgotten first),
 * so a client that retries in a loop does not flood the log.
 */
export class OncePerPeer {
  private readonly seen = new Set<string>();
  constructor(private readonly max = 1024) {}

  /** True the first time `key` is seen (since it was last forgotten). */
  first(key: string): boolean {
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.max) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.seen.add(key);
    return true;
  }
}

export class TlsEndpoint {
  private material: TlsMaterial;
  private server: tls.Server | undefined;
  private readonly watchers: FSWatcher[] = [];
  private debounce: NodeJS.Timeout | undefined;
  private readonly plainPeers = new OncePerPeer();
  private readonly refusedPeers = new OncePerPeer();
  private readonly listeners = new Set<(material: TlsMaterial) => void>();

  /** Loads and checks the files: throws a CONFIG_INVALID GridError naming the file and fault. */
  constructor(
    readonly ssl: SslConfig,
    /** Names this endpoint in logs (`member`, `rest`, `wan`). */
    readonly name: string,
    private readonly logger: Logger,
  ) {
    this.material = loadTlsMaterial(ssl);
  }

  get current(): TlsMaterial {
    return this.material;
  }

  /** Told after every successful reload (tests, metrics). */
  onReload(fn: (material: TlsMaterial) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private serverOptions(): tls.TlsOptions {
    const m = this.ssl.mutualAuthentication;
    return {
      ...this.material.options,
      requestCert: m !== 'NONE',
      // Checked on 'secureConnection' (node would drop an untrusted peer there without a word):
      // REQUIRED refuses a peer without a trusted certificate, OPTIONAL one with an untrusted
      // certificate; either way logged with the reason, and no byte of the peer is read.
      rejectUnauthorized: false,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    };
  }

  /**
   * Server side: `raw` is a new connection whose first bytes `head` were read by the listener.
   * A TLS handshake is completed and `secure` gets the decrypted socket; anything else is
   * refused (plain HTTP with a clear 400, a plain member frame by closing).
   */
  accept(raw: net.Socket, head: Buffer, secure: (socket: tls.TLSSocket) => void): void {
    const peer = raw.remoteAddress ?? '?';
    if (head[0] !== TLS_HANDSHAKE) {
      const member = head[0] === 0x00;
      if (this.plainPeers.first(peer)) {
        this.logger.debug({ remote: `${peer}:${raw.remotePort ?? 0}` }, `plain ${member ? 'member-protocol' : 'HTTP'} connection to the TLS port refused (${this.name})`);
      }
      if (member) raw.destroy();
      else raw.end(PLAIN_HTTP_ANSWER);
      return;
    }
    const server = (this.server ??= this.createServer());
    raw.unshift(head);
    this.pendingSecure.set(raw, secure);
    // The tls.Server (never listening) runs the handshake with the current context and its session tickets.
    server.emit('connection', raw);
  }

  private readonly pendingSecure = new WeakMap<net.Socket, (socket: tls.TLSSocket) => void>();

  private createServer(): tls.Server {
    const server = tls.createServer(this.serverOptions());
    server.on('secureConnection', (socket: tls.TLSSocket) => {
      const raw = (socket as unknown as { _parent?: net.Socket })._parent;
      const secure = raw !== undefined ? this.pendingSecure.get(raw) : undefined;
      if (raw !== undefined) this.pendingSecure.delete(raw);
      if (secure === undefined) {
        socket.destroy();
        return;
      }
      const m = this.ssl.mutualAuthentication;
      if (m !== 'NONE' && !socket.authorized) {
        const shown = hasPeerCertificate(socket);
        if (m === 'REQUIRED' || shown) {
          const subject = shown ? ` (${socket.getPeerCertificate().subject?.CN ?? '?'})` : '';
          const reason = shown ? `untrusted certificate${subject}: ${String(socket.authorizationError ?? 'not verified')}` : 'no certificate (mutualAuthentication REQUIRED)';
          this.refused(socket.remoteAddress, socket.remotePort, reason);
          refuseInside(socket, reason);
          return;
        }
      }
      secure(socket);
    });
    server.on('tlsClientError', (err: Error, socket: tls.TLSSocket) => {
      this.refused(socket.remoteAddress, socket.remotePort, describeTlsError(err));
      socket.destroy();
    });
    return server;
  }

  private refused(address: string | undefined, port: number | undefined, reason: string): void {
    const key = `${address ?? '?'} ${reason}`;
    const line = `TLS handshake from ${address ?? '?'}:${port ?? 0} refused (${this.name}): ${reason}`;
    // Each peer's reason is a warning once; its retries are FINE.
    if (this.refusedPeers.first(key)) this.logger.warn({ remote: `${address ?? '?'}:${port ?? 0}` }, line);
    else this.logger.debug({ remote: `${address ?? '?'}:${port ?? 0}` }, line);
  }

  /**
   * Client side: a TLS connection to `host:port`, ready on 'secureConnect'. The peer's chain is
   * always checked against the trust material; its name only when `validateIdentity` holds
   * (default `identityByDefault`), against `serverName` or else the host dialled.
   */
  connect(host: string, port: number, identityByDefault: boolean): tls.TLSSocket {
    const validate = this.ssl.validateIdentity ?? identityByDefault;
    const expected = this.ssl.serverName ?? host;
    const socket = tls.connect({
      host,
      port,
      secureContext: this.material.context,
      minVersion: this.material.options.minVersion,
      maxVersion: this.material.options.maxVersion,
      ...(net.isIP(expected) === 0 ? { servername: expected } : {}),
      rejectUnauthorized: true,
      checkServerIdentity: validate ? (_name, cert) => tls.checkServerIdentity(expected, cert) : () => undefined,
    });
    socket.setNoDelay(true);
    return socket;
  }

  /** Reads the files again; new connections use them when they are sound, else the old ones stay (logged). */
  reload(reason: string): ReloadOutcome {
    let next: TlsMaterial;
    try {
      next = loadTlsMaterial(this.ssl);
    } catch (e) {
      const error = describeError(e);
      this.logger.error(`TLS reload (${this.name}, ${reason}) refused, the current certificate stays in use: ${error}`);
      return { error };
    }
    const changed = next.digest !== this.material.digest;
    if (changed) {
      this.material = next;
      this.server?.setSecureContext(this.serverOptions());
      this.logger.info(
        { subject: next.subject, notAfter: next.notAfter.toISOString(), fingerprint256: next.fingerprint256 },
        `TLS certificate reloaded (${this.name}, ${reason})`,
      );
      for (const fn of this.listeners) fn(next);
    } else if (reason !== 'files changed') {
      this.logger.info({ subject: next.subject, notAfter: next.notAfter.toISOString() }, `TLS files reread (${this.name}, ${reason}): unchanged`);
    }
    return { changed, subject: next.subject, notAfter: next.notAfter.toISOString() };
  }

  /** Reload when a file changes (the directories are watched: renewals replace files and swap symlinks). */
  watchFiles(): void {
    const dirs = new Map<string, Set<string>>();
    for (const f of this.material.files) {
      const set = dirs.get(dirname(f)) ?? new Set<string>();
      set.add(basename(f));
      dirs.set(dirname(f), set);
    }
    for (const [dir] of dirs) {
      try {
        const w = watch(dir, { persistent: false }, () => this.fileChanged());
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch (e) {
        this.logger.warn(`cannot watch ${dir} for TLS file changes (reload with SIGHUP instead): ${describeError(e)}`);
      }
    }
  }

  private fileChanged(): void {
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.reload('files changed');
    }, WATCH_DEBOUNCE_MS);
    this.debounce.unref();
  }

  close(): void {
    for (const w of this.watchers.splice(0)) w.close();
    if (this.debounce !== undefined) clearTimeout(this.debounce);
  }
}

/**
 * A peer refused after the handshake (TLSv1.3 clients count it done before the server checked
 * their certificate): an HTTP client gets a 403 that says why (curl and `grid` show it), anything
 * else is closed: a member frame, and a Hazelcast client's `CP2`, whose reader would take the
 * 403's bytes for a frame length and wait for the rest. Only the first bytes are looked at;
 * nothing of the peer reaches HTTP, members or clients.
 */
function refuseInside(socket: tls.TLSSocket, reason: string): void {
  socket.on('error', () => undefined);
  const timer = setTimeout(() => socket.destroy(), 2_000);
  timer.unref();
  socket.once('data', (head: Buffer) => {
    clearTimeout(timer);
    socket.pause();
    if (head[0] === 0x00 || isClientProtocol(head)) {
      socket.destroy();
      return;
    }
    const why = `TLS client certificate refused: ${reason}; present a certificate the member trusts (curl --cert/--key, grid --cert/--key)`;
    socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\nX-Grid-Error: ${why.replace(/[\r\n]/g, ' ')}\r\n\r\n`);
  });
}

const CLIENT_PREAMBLE = Buffer.from('CP2', 'latin1');

/** The client protocol's preamble, or its start when the first read was shorter (no HTTP method starts `CP`). */
function isClientProtocol(head: Buffer): boolean {
  const n = Math.min(head.length, CLIENT_PREAMBLE.length);
  return n >= 2 ? head.subarray(0, n).equals(CLIENT_PREAMBLE.subarray(0, n)) : false;
}

function hasPeerCertificate(socket: tls.TLSSocket): boolean {
  const cert = socket.getPeerCertificate();
  return cert !== null && typeof cert === 'object' && Object.keys(cert).length > 0;
}

/** OpenSSL's reasons, in words an operator searches for. */
function describeTlsError(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  // error:0A0000C7:SSL routines:<function>:<reason>:<file>:<line>: -> <reason>
  const parts = err.message.split(/routines:/)[1]?.split(':');
  const m = (parts?.[1] ?? parts?.[0] ?? err.message).trim();
  return code !== undefined && code !== '' ? `${m} (${code})` : m;
}
