// Test helpers for things that take time: polling with a deadline, raw HTTP over plain
// sockets (to see exactly what a member sends, or that it sends nothing), and `grid` child
// processes that are always killed after the test.

import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The `grid` launcher the tests spawn: this checkout's bin/grid.js, or TEST_GRID_BIN when set
 * (`npm run chaos` points it at a snapshot of the build, so a rebuild during a long run does
 * not mix versions in one cluster).
 */
export const GRID_BIN = process.env.TEST_GRID_BIN ? resolve(process.env.TEST_GRID_BIN) : resolve(REPO_ROOT, 'bin/grid.js');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` until it returns something other than undefined/false, or fails after
 * `timeoutMs` with `what` and the last value/error seen.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last instanceof Error ? last.message : String(last)})`);
    }
    await sleep(intervalMs);
  }
}

/** Rejects when `p` does not settle within `ms`. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------- raw HTTP

export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw header block, as sent. */
  readonly head: string;
  readonly body: Buffer;
}

/** Parses one complete response at the start of `buf` (Content-Length framing); undefined if incomplete. */
function parseResponse(buf: Buffer, noBody: boolean): { res: RawResponse; used: number } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const head = buf.subarray(0, end).toString('latin1');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const len = noBody || status === 204 || status === 304 || status < 200 ? 0 : Number(headers['content-length'] ?? 0);
  if (buf.length < end + 4 + len) return undefined;
  return { res: { status, headers, head, body: buf.subarray(end + 4, end + 4 + len) }, used: end + 4 + len };
}

/** A keep-alive HTTP/1.1 connection driven by hand: one request at a time. */
export class RawConnection {
  private buffered = Buffer.alloc(0);
  private closedFlag = false;
  private waiter: (() => void) | undefined;
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, d]);
      this.waiter?.();
    });
    socket.on('error', () => {
      // a reset is a close for these tests
    });
    this.closed = new Promise((resolveClosed) =>
      socket.once('close', () => {
        this.closedFlag = true;
        this.waiter?.();
        resolveClosed();
      }),
    );
  }

  static open(port: number, host = '127.0.0.1', timeoutMs = 3_000): Promise<RawConnection> {
    return within(
      new Promise<RawConnection>((resolveOpen, reject) => {
        const s = net.connect({ port, host });
        s.once('connect', () => resolveOpen(new RawConnection(s)));
        s.once('error', reject);
      }),
      timeoutMs,
      `a connection to ${host}:${port}`,
    );
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  /** All bytes received and not yet consumed as a response. */
  get unread(): Buffer {
    return this.buffered;
  }

  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  /** Sends one request and reads its response. */
  async request(
    method: string,
    path: string,
    opts: { body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<RawResponse> {
    const body = opts.body ?? '';
    const headers: Record<string, string> = { Host: 'localhost', ...(opts.headers ?? {}) };
    if (body !== '' || method === 'POST') headers['Content-Length'] = String(Buffer.byteLength(body));
    const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
    this.write(head + body);
    return this.readResponse(method === 'HEAD', opts.timeoutMs ?? 3_000);
  }

  /** Reads the next complete response. */
  async readResponse(noBody = false, timeoutMs = 3_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.buffered, noBody);
      if (parsed !== undefined) {
        this.buffered = this.buffered.subarray(parsed.used);
        return parsed.res;
      }
      if (this.closedFlag) throw new Error(`connection closed before a complete response (got ${this.buffered.length} bytes)`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no complete response within ${timeoutMs} ms (got ${JSON.stringify(this.buffered.toString('latin1'))})`);
      await new Promise<void>((wake) => {
        const t = setTimeout(wake, left);
        this.waiter = () => {
          clearTimeout(t);
          wake();
        };
      });
      this.waiter = undefined;
    }
  }

  /** Waits for the peer to close; returns every byte it sent meanwhile (unconsumed). */
  async waitClosed(timeoutMs = 3_000): Promise<Buffer> {
    await within(this.closed, timeoutMs, 'the server to close the connection');
    return this.buffered;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** One request on a fresh connection that is closed afterwards. */
export async function rawRequest(
  port: number,
  method: string,
  path: string,
  opts: { body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<RawResponse> {
  const c = await RawConnection.open(port);
  try {
    return await c.request(method, path, opts);
  } finally {
    c.close();
  }
}

/**
 * Sends `request` on a fresh connection and resolves with the bytes received once the server
 * closes it; rejects when the server keeps it open past `timeoutMs`.
 */
export async function sendAndAwaitClose(port: number, request: string, timeoutMs = 3_000): Promise<Buffer> {
  const c = await RawConnection.open(port);
  try {
    c.write(request);
    return await c.waitClosed(timeoutMs);
  } finally {
    c.close();
  }
}

/** True when nothing accepts connections on the port any more. */
export function connectionRefused(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolveRefused) => {
    const s = net.connect({ port, host });
    s.once('connect', () => {
      s.destroy();
      resolveRefused(false);
    });
    s.once('error', (e: NodeJS.ErrnoException) => resolveRefused(e.code === 'ECONNREFUSED'));
  });
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

// ---------------------------------------------------------------- grid child processes

export interface GridProcess {
  readonly child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in stdout (waiting for it until the deadline). */
  waitForStdout(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();

afterEach(async () => {
  const running = [...children];
  children.clear();
  await Promise.all(
    running.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGKILL');
      await within(gone, 5_000, `child ${c.pid ?? '?'} to exit after SIGKILL`);
    }),
  );
});

/** The parent's environment without anything that configures Grid. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('HZ_') || k.startsWith('GRID_')) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Spawns `node bin/grid.js <args>`; killed after the test if still running. */
export function spawnGrid(args: readonly string[], opts: { env?: Record<string, string>; cwd?: string; prefix?: readonly string[] } = {}): GridProcess {
  // A prefix that execs its command (`ip netns exec <ns>`) keeps the member's pid.
  const argv = [...(opts.prefix ?? []), process.execPath, GRID_BIN, ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd ?? REPO_ROOT,
    env: opts.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  // stdout/stderr may still hold data after 'exit'; 'close' means both streams ended.
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: async (re, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = re.exec(out);
        if (m) return m;
        const state = `stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`;
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`grid ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before stdout matched ${String(re)}; ${state}`);
        }
        if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for stdout to match ${String(re)}; ${state}`);
        await sleep(20);
      }
    },
    exited: async (timeoutMs = 10_000) => {
      const r = await within(exit, timeoutMs, `grid ${args.join(' ')} to exit; stdout ${JSON.stringify(out)}`);
      await within(closed, 2_000, 'the output streams of the child to close');
      return r;
    },
  };
}
