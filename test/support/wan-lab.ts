// Data centres in Linux network namespaces joined by one bridge, for WAN links that drop
// packets rather than refuse them. Each side is a namespace whose members share one address
// on its loopback; every side has a port on a bridge (in a namespace of its own) and reaches
// the others' members through it (with permanent neighbour entries, as a gateway would stay
// resolvable), and this process reaches every member through a veth of its own. Cuts:
// - `drop`: the bridge discards every frame it forwards (a tbf qdisc that passes nothing on its
//   ports' egress), so neither side's kernel learns anything: TCP backs off its retransmissions
//   exponentially, as across a WAN whose router drops (issue 29). In a lab of two sides this
//   cuts the two from each other.
// - `port`: the bridge port of that side goes down. The side's own veth loses its carrier, so
//   its kernel fails the sends locally and TCP retries every 0.5 s: a cable pulled next door.
// - `netem`: `tc netem loss 100%` on both ends of the side's link, where the kernel has sch_netem.
// Namespaces are named like netns.ts's (GRID_NETNS_PREFIX), devices start with `gw`; labs are
// removed after their test (or file). The side namespaces are built by netns.ts's `addSide`.
// `bridgeLabUnavailable()` / `netemUnavailable()` say why not, for a clear skip.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach } from 'vitest';
import { NS_PREFIX, addSide, freeLabNet, ip, removeNamespace } from './netns.js';

/** The start of every device name a WAN lab creates in this namespace. */
const PREFIX = 'gw';

function tc(ns: string, ...args: string[]): string {
  return execFileSync('ip', ['netns', 'exec', ns, 'tc', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function firstLine(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  return (err.stderr || err.message || String(e)).trim().split('\n')[0] ?? '';
}

/** A namespace with a bridge and a veth on it, created and removed: the kernel's answer. */
function probe(withNetem: boolean): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'network namespaces need root';
  const ns = `${NS_PREFIX}p${randomBytes(3).toString('hex')}`;
  try {
    ip('netns', 'add', ns);
    ip('-n', ns, 'link', 'add', `${ns}b`, 'type', 'bridge');
    ip('-n', ns, 'link', 'add', `${ns}x`, 'type', 'veth', 'peer', 'name', `${ns}y`);
    ip('-n', ns, 'link', 'set', `${ns}y`, 'master', `${ns}b`);
    if (withNetem) {
      ip('-n', ns, 'link', 'set', `${ns}x`, 'up');
      tc(ns, 'qdisc', 'add', 'dev', `${ns}x`, 'root', 'netem', 'loss', '100%');
    }
    return undefined;
  } catch (e) {
    return withNetem ? `tc netem is not available: ${firstLine(e)}` : `the kernel refused a namespace, bridge or veth: ${firstLine(e)}`;
  } finally {
    try {
      ip('netns', 'del', ns);
    } catch {
      // was not created
    }
  }
}

let bridgeAnswer: string | undefined | null = null;
let netemAnswer: string | undefined | null = null;

/** Why a WanLab cannot be built here, or undefined when it can. */
export function bridgeLabUnavailable(): string | undefined {
  if (bridgeAnswer === null) bridgeAnswer = probe(false);
  return bridgeAnswer;
}

/** Why `netem` cuts cannot be made here (no sch_netem, say), or undefined when they can. */
export function netemUnavailable(): string | undefined {
  if (netemAnswer === null) netemAnswer = bridgeLabUnavailable() ?? probe(true);
  return netemAnswer;
}

export type CutMode = 'drop' | 'port' | 'netem';

/** Labs of scope `test` go after each test; those of scope `file` after the file. */
const testLabs = new Set<WanLab>();
const fileLabs = new Set<WanLab>();
afterEach(() => {
  for (const l of testLabs) l.destroy();
  testLabs.clear();
});
afterAll(() => {
  for (const l of fileLabs) l.destroy();
  fileLabs.clear();
});

export class WanLab {
  /** Namespace of each side. */
  readonly ns: string[] = [];
  /** The address members of each side bind (on the side's loopback). */
  readonly hosts: string[] = [];
  private readonly bridgeNs: string;
  private readonly cuts = new Map<number, CutMode>();

  private sides = 0;

  private constructor(private readonly id: string) {
    this.bridgeNs = `${NS_PREFIX}${id}br`;
  }

  /** `sides` data centres on one bridge; removed after the test (or, with scope `file`, after the file). */
  static create(sides: number, scope: 'test' | 'file' = 'test'): WanLab {
    const id = randomBytes(2).toString('hex');
    const net = freeLabNet('a WAN lab');
    const lab = new WanLab(id);
    (scope === 'file' ? fileLabs : testLabs).add(lab);
    try {
      const br = lab.bridgeNs;
      ip('netns', 'add', br);
      ip('-n', br, 'link', 'add', 'br0', 'type', 'bridge');
      ip('-n', br, 'link', 'set', 'br0', 'up');
      for (let i = 0; i < sides; i++) {
        addSide(lab, `${PREFIX}${id}`, id, net, i);
        const ns = lab.ns[i]!;
        // The WAN: side i's port on the bridge, 10.<net>.250.0/24 among the sides.
        const wanDev = `${PREFIX}${id}w${i}`;
        const portDev = `${PREFIX}${id}p${i}`;
        ip('link', 'add', wanDev, 'type', 'veth', 'peer', 'name', portDev);
        ip('link', 'set', wanDev, 'netns', ns);
        ip('link', 'set', portDev, 'netns', br);
        ip('-n', br, 'link', 'set', portDev, 'master', 'br0');
        ip('-n', br, 'link', 'set', portDev, 'up');
        ip('-n', ns, 'addr', 'add', `10.${net}.250.${i + 1}/24`, 'dev', wanDev);
        ip('-n', ns, 'link', 'set', wanDev, 'up');
      }
      lab.sides = sides;
      const macs = lab.ns.map((ns, i) => (JSON.parse(ip('-j', '-n', ns, 'link', 'show', `${PREFIX}${id}w${i}`)) as { address: string }[])[0]!.address);
      for (let i = 0; i < sides; i++) {
        for (let j = 0; j < sides; j++) {
          if (i === j) continue;
          ip('-n', lab.ns[i]!, 'route', 'add', `${lab.hosts[j]!}/32`, 'via', `10.${net}.250.${j + 1}`, 'dev', `${PREFIX}${id}w${i}`);
          // A neighbour that never needs resolving: no ARP failure tells a sender anything during a cut.
          ip('-n', lab.ns[i]!, 'neigh', 'replace', `10.${net}.250.${j + 1}`, 'lladdr', macs[j]!, 'dev', `${PREFIX}${id}w${i}`, 'nud', 'permanent');
        }
      }
    } catch (e) {
      lab.destroy();
      throw e;
    }
    return lab;
  }

  /** Drop every packet between side `i` and the others, silently, until `heal(i)`. */
  cut(i: number, mode: CutMode): void {
    if (this.cuts.has(i)) throw new Error(`side ${i} is already cut`);
    if (mode === 'drop') {
      // burst 10 bytes: every frame is larger, and tbf drops what it could never send.
      for (let k = 0; k < this.sides; k++) tc(this.bridgeNs, 'qdisc', 'replace', 'dev', `${PREFIX}${this.id}p${k}`, 'root', 'tbf', 'rate', '8bit', 'burst', '10', 'limit', '1');
    } else if (mode === 'port') ip('-n', this.bridgeNs, 'link', 'set', `${PREFIX}${this.id}p${i}`, 'down');
    else {
      tc(this.ns[i]!, 'qdisc', 'add', 'dev', `${PREFIX}${this.id}w${i}`, 'root', 'netem', 'loss', '100%');
      tc(this.bridgeNs, 'qdisc', 'add', 'dev', `${PREFIX}${this.id}p${i}`, 'root', 'netem', 'loss', '100%');
    }
    this.cuts.set(i, mode);
  }

  heal(i: number): void {
    const mode = this.cuts.get(i);
    if (mode === undefined) return;
    if (mode === 'drop') {
      for (let k = 0; k < this.sides; k++) tc(this.bridgeNs, 'qdisc', 'del', 'dev', `${PREFIX}${this.id}p${k}`, 'root');
    } else if (mode === 'port') ip('-n', this.bridgeNs, 'link', 'set', `${PREFIX}${this.id}p${i}`, 'up');
    else {
      tc(this.ns[i]!, 'qdisc', 'del', 'dev', `${PREFIX}${this.id}w${i}`, 'root');
      tc(this.bridgeNs, 'qdisc', 'del', 'dev', `${PREFIX}${this.id}p${i}`, 'root');
    }
    this.cuts.delete(i);
  }

  /** `ip netns exec <ns>`: the prefix that runs a member on side `i`. */
  prefix(i: number): string[] {
    return ['ip', 'netns', 'exec', this.ns[i]!];
  }

  destroy(): void {
    for (let i = 0; i < this.ns.length; i++) {
      removeNamespace(this.ns[i]!);
      try {
        ip('link', 'del', `${PREFIX}${this.id}r${i}`);
      } catch {
        // removed with its peer
      }
    }
    removeNamespace(this.bridgeNs);
    this.ns.length = 0;
  }
}
