// Test hosts in Linux network namespaces, for partitions that cut real links. Each side is a
// namespace whose members share one address (on its loopback); sides are joined to each other
// by veth links (the links a test cuts and restores) and each to this process's namespace by
// its own veth (so the test reaches every member's REST port while the sides cannot reach each
// other). Needs root and iproute2; `netnsUnavailable()` says why not, for a clear skip.
// Namespace names start with GRID_NETNS_PREFIX (default `grid`), so that test runs sharing a
// machine can each tell (and clean up) their own. The pieces every lab builds the same way (a
// free 10.x/16, a side namespace this process reaches over its own veth, removal) are exported
// for wan-lab.ts.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach } from 'vitest';

/** The start of every namespace name a lab creates. */
export const NS_PREFIX = process.env.GRID_NETNS_PREFIX ?? 'grid';

export function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why network namespaces cannot be used here, or undefined when they can. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'network namespaces need root';
  const probe = `${NS_PREFIX}p${randomBytes(3).toString('hex')}`;
  try {
    ip('netns', 'add', probe);
    ip('-n', probe, 'link', 'set', 'lo', 'up');
    ip('link', 'add', `${probe}a`, 'type', 'veth', 'peer', 'name', `${probe}b`);
    ip('link', 'del', `${probe}a`);
    return undefined;
  } catch (e) {
    return `the kernel refused a network namespace or veth link: ${(e as Error).message.split('\n')[0]}`;
  } finally {
    try {
      ip('netns', 'del', probe);
    } catch {
      // was not created
    }
  }
}

const labs = new Set<NetLab>();
afterEach(() => {
  for (const l of labs) l.destroy();
  labs.clear();
});

/**
 * `ip netns del`, tried again for a while: it fails (busy) while a process started with `ip
 * netns exec` is still on its way out, and a namespace left behind outlives the test run.
 */
export function removeNamespace(ns: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      ip('netns', 'del', ns);
      return;
    } catch (e) {
      const why = (e as { stderr?: string }).stderr ?? String(e);
      if (/No such file|does not exist/i.test(why)) return;
      if (attempt >= 20) {
        console.warn(`network namespace ${ns} could not be removed: ${why.trim()}`);
        return;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

/** 10.<net>.x.y for a new lab: a /16 no route of this namespace uses (other labs of this run included). */
export function freeLabNet(what: string): number {
  const used = ip('-4', 'route');
  for (let tries = 0; tries < 50; tries++) {
    const n = 100 + Math.floor(Math.random() * 150);
    if (!used.includes(`10.${n}.`)) return n;
  }
  throw new Error(`no free 10.x.0.0/16 for ${what}`);
}

/**
 * Side `i` of lab `id`: namespace `<NS_PREFIX><id>s<i>`, its members' address 10.<net>.100.<i+1>
 * on its loopback, and this process's way in, a veth `<dev>r<i>` over 10.<net>.<i>.0/24 (replies
 * to the test go back over it; nothing else is routed this way). Pushed onto `lab` as soon as it
 * exists, so a failure part way still removes it.
 */
export function addSide(lab: { ns: string[]; hosts: string[] }, dev: string, id: string, net: number, i: number): void {
  const ns = `${NS_PREFIX}${id}s${i}`;
  ip('netns', 'add', ns);
  lab.ns.push(ns);
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  const host = `10.${net}.100.${i + 1}`;
  ip('-n', ns, 'addr', 'add', `${host}/32`, 'dev', 'lo');
  lab.hosts.push(host);
  const rootDev = `${dev}r${i}`;
  const sideDev = `${dev}t${i}`;
  ip('link', 'add', rootDev, 'type', 'veth', 'peer', 'name', sideDev);
  ip('link', 'set', sideDev, 'netns', ns);
  ip('addr', 'add', `10.${net}.${i}.1/24`, 'dev', rootDev);
  ip('link', 'set', rootDev, 'up');
  ip('-n', ns, 'addr', 'add', `10.${net}.${i}.2/24`, 'dev', sideDev);
  ip('-n', ns, 'link', 'set', sideDev, 'up');
  ip('route', 'add', `${host}/32`, 'via', `10.${net}.${i}.2`);
}

export class NetLab {
  /** Namespace name of each side. */
  readonly ns: string[] = [];
  /** Address members of each side bind (on the side's loopback). */
  readonly hosts: string[] = [];
  private readonly links = new Map<string, { a: number; b: number; devA: string; devB: string }>();
  /** Sink devices made so far (setDrop, setReach). */
  private readonly sinks = new Set<string>();

  private constructor(private readonly id: string, private readonly net: number) {}

  /** `sides` namespaces, each linked to every other and to this process's namespace. */
  static create(sides: number): NetLab {
    const id = randomBytes(2).toString('hex');
    const net = freeLabNet('a network lab');
    const lab = new NetLab(id, net);
    labs.add(lab);
    try {
      for (let i = 0; i < sides; i++) addSide(lab, `g${id}`, id, net, i);
      // Side <-> side links, the ones a partition cuts.
      let k = 0;
      for (let a = 0; a < sides; a++) {
        for (let b = a + 1; b < sides; b++, k++) {
          const devA = `g${id}l${a}${b}`;
          const devB = `g${id}l${b}${a}`;
          ip('link', 'add', devA, 'type', 'veth', 'peer', 'name', devB);
          ip('link', 'set', devA, 'netns', lab.ns[a]!);
          ip('link', 'set', devB, 'netns', lab.ns[b]!);
          ip('-n', lab.ns[a]!, 'addr', 'add', `10.${net}.${200 + k}.1/30`, 'dev', devA);
          ip('-n', lab.ns[b]!, 'addr', 'add', `10.${net}.${200 + k}.2/30`, 'dev', devB);
          lab.links.set(`${a}-${b}`, { a, b, devA, devB });
          lab.setLink(a, b, true);
        }
      }
    } catch (e) {
      lab.destroy();
      throw e;
    }
    return lab;
  }

  /** Bring the link between sides `a` and `b` up (with routes to each other's members) or down. */
  setLink(a: number, b: number, up: boolean): void {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    const l = this.links.get(`${lo}-${hi}`);
    if (l === undefined) throw new Error(`no link between sides ${a} and ${b}`);
    const nsA = this.ns[l.a]!;
    const nsB = this.ns[l.b]!;
    ip('-n', nsA, 'link', 'set', l.devA, up ? 'up' : 'down');
    ip('-n', nsB, 'link', 'set', l.devB, up ? 'up' : 'down');
    if (up) {
      // Routes through a link vanish when it goes down; put them back.
      ip('-n', nsA, 'route', 'replace', `${this.hosts[l.b]!}/32`, 'dev', l.devA);
      ip('-n', nsB, 'route', 'replace', `${this.hosts[l.a]!}/32`, 'dev', l.devB);
    }
  }

  /**
   * Drop (or deliver again) every packet between sides `a` and `b`, the links staying up: both
   * sides route the other's address into a sink (a veth whose other end is down), so what they
   * send leaves without an error and is lost, as in a network that drops packets (a dead switch,
   * a firewall). TCP connections across it retransmit with exponential back-off until packets go
   * through again. (A link taken down is another fault: the kernel knows the route is gone and
   * sends nothing.)
   */
  setDrop(a: number, b: number, dropping: boolean): void {
    const [lo, hi] = a < b ? [a, b] : [b, a];
    const l = this.links.get(`${lo}-${hi}`);
    if (l === undefined) throw new Error(`no link between sides ${a} and ${b}`);
    this.routeTo(['-n', this.ns[l.a]!], this.hosts[l.b]!, dropping ? this.sink(l.a) : ['dev', l.devA]);
    this.routeTo(['-n', this.ns[l.b]!], this.hosts[l.a]!, dropping ? this.sink(l.b) : ['dev', l.devB]);
  }

  /** Drop (or deliver again) every packet between side `i` and this process's namespace, as `setDrop` does between sides. */
  setReach(i: number, reachable: boolean): void {
    const ns = this.ns[i];
    if (ns === undefined) throw new Error(`no side ${i}`);
    this.routeTo([], this.hosts[i]!, reachable ? ['via', `10.${this.net}.${i}.2`] : this.sink(i, true));
    if (reachable) ip('-n', ns, 'route', 'del', `10.${this.net}.${i}.1/32`);
    else this.routeTo(['-n', ns], `10.${this.net}.${i}.1`, this.sink(i));
  }

  private routeTo(nsArgs: string[], host: string, via: string[]): void {
    ip(...nsArgs, 'route', 'replace', `${host}/32`, ...via);
    // A fixed neighbour on the sink: no ARP, whose queue would hold packets and send them when the way is back.
    if (via[0] === 'dev' && via[1]!.includes('k')) ip(...nsArgs, 'neigh', 'replace', host, 'lladdr', '02:00:00:00:00:01', 'dev', via[1]!, 'nud', 'permanent');
  }

  /** The sink of side `i` (or, `root`, this namespace's sink towards side `i`), created once: a veth pair with one end down. */
  private sink(i: number, root = false): string[] {
    const dev = root ? `g${this.id}k${i}r` : `g${this.id}k${i}`;
    if (!this.sinks.has(dev)) {
      const nsArgs = root ? [] : ['-n', this.ns[i]!];
      const other = root ? `g${this.id}z${i}r` : `g${this.id}z${i}`;
      ip(...nsArgs, 'link', 'add', dev, 'type', 'veth', 'peer', 'name', other);
      ip(...nsArgs, 'link', 'set', dev, 'up');
      this.sinks.add(dev);
    }
    return ['dev', dev];
  }

  /** `ip netns exec <ns>`: the prefix that runs a member on side `i`. */
  prefix(i: number): string[] {
    return ['ip', 'netns', 'exec', this.ns[i]!];
  }

  destroy(): void {
    for (let i = 0; i < this.ns.length; i++) {
      removeNamespace(this.ns[i]!);
      try {
        ip('link', 'del', `g${this.id}r${i}`);
      } catch {
        // removed with its peer
      }
      try {
        ip('link', 'del', `g${this.id}k${i}r`);
      } catch {
        // setReach made no sink towards this side
      }
    }
    this.ns.length = 0;
  }
}
