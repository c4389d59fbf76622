// The one way tests find ports for members: `freePorts(n)` picks ports that are free now,
// below the kernel's ephemeral range. A listener the test binds itself and keeps (a fake
// peer, a blocker) listens on port 0 instead and reads its port back: no race at all.

import net from 'node:net';
import { readFileSync } from 'node:fs';

/** True when a listener can bind `port` on 127.0.0.1 now (it is closed again at once). */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * `n` distinct ports that are free now, chosen below the kernel's ephemeral range: members
 * bind them later (spares much later), and a port from the ephemeral range could meanwhile
 * become the local end of some outgoing connection, or another test's `listen(0)`.
 */
export async function freePorts(n: number): Promise<number[]> {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // not Linux: keep the usual default
  }
  const high = Math.max(ephemeralLow - 1, 11_000);
  const low = Math.max(10_000, high - 15_000);
  const ports = new Set<number>();
  for (let attempts = 0; ports.size < n; attempts++) {
    if (attempts > 1_000) throw new Error(`could not find ${n} free ports in ${low}-${high}`);
    const p = low + Math.floor(Math.random() * (high - low + 1));
    if (!ports.has(p) && (await canListen(p))) ports.add(p);
  }
  return [...ports];
}

/** One port from `freePorts`. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
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
