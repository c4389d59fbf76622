// Pure partition assignment: which members hold each partition's replicas. The master feeds it
// the current table and the data members and publishes what comes out; no I/O, no clock, no
// randomness, so every member computes the same table and the tests can check every invariant.

import { DEFAULT_MAP, DEFAULT_QUEUE, MAX_BACKUP_COUNT } from '../config/defaults.js';
import type { GridConfig } from '../config/types.js';
import { GridError } from '../core/errors.js';
import { PARTITION_COUNT } from './partitioning.js';

/** The members holding one partition: index 0 = owner, 1.. = backups; distinct, no holes. */
export type Replicas = readonly string[];
/** One `Replicas` per partition id. */
export type Table = readonly Replicas[];

/** Remove members that are not alive; the survivors keep their order, so the first surviving backup becomes owner (promotion, no data moves). */
export function promote(table: Table, alive: (uuid: string) => boolean): Replicas[] {
  return table.map((replicas) => replicas.filter((uuid) => alive(uuid)));
}

/**
 * The target table: every partition gets exactly min(replicaCount, dataMembers.length)
 * distinct replicas taken from dataMembers (lite members are never passed in). Balanced: for
 * each replica index, every member's count of partitions at that index is floor or ceil of
 * 271/n; and each member's total replica count is balanced likewise. Minimal movement: a
 * member that stays keeps as many of its current (partition,index) slots as balance allows;
 * when a partition's owner must change, prefer making a current backup the owner (it already
 * holds the data) and keep the previous owner as a backup when a backup slot is free.
 * Deterministic (same input -> same output, no randomness; ties broken by dataMembers order).
 * Members in `table` that are not in dataMembers are dropped first (as by promote). An empty
 * dataMembers gives 271 empty lists.
 *
 * After deaths, pass the table from before them (not its promoted form): only then can
 * balance tell a surviving owner, which it never moves, from a promoted one, which it may.
 * A promoted table is accepted too; its owners are all treated as surviving owners, and
 * those a member must give up are taken first from partitions that lost a replica.
 *
 * How: (1) per-index quotas: who gets the ceil at each index, chosen so that the members
 * already holding more keep it and totals stay balanced. (2) Every member keeps its current
 * slots up to its quota, giving up first slots that promotion shifted and slots of
 * partitions that lost a replica or keep other holders. (3) Index by index, empty slots go
 * to members that hold the data, then to backups moving up, then by a maximum matching to
 * members with quota left. (4) A slot no matching can fill takes an alternating (Kempe)
 * chain of swaps between two partitions: the bipartite edge-colouring step that guarantees
 * the quotas can always be met. Chains avoid moving surviving owners; a last pass swaps any
 * that moved back where the per-index counts allow. Throughout, ties go to the choice that
 * spreads owner/first-backup pairs evenly, so a later death promotes evenly.
 */
export function balance(table: Table, dataMembers: readonly string[], replicaCount: number): Replicas[] {
  const members = [...new Set(dataMembers)];
  const n = members.length;
  const r = Math.min(Math.max(0, Math.floor(replicaCount)), n);
  if (r === 0) return Array.from({ length: PARTITION_COUNT }, () => []);
  const rank = new Map(members.map((m, i) => [m, i]));
  const original = Array.from({ length: PARTITION_COUNT }, (_, p) => table[p] ?? []);
  const current = promote(original, (uuid) => rank.has(uuid)).map((replicas) => [...new Set(replicas)]);
  return new Assigner(members, rank, r, original, current).run();
}

class Assigner {
  /** Member index (by rank) -> partition -> replica index there, or -1. */
  private readonly pos: Int16Array[];
  private readonly next: (number | undefined)[][];
  /** quota[i][m] and count[i][m]: partitions at replica index i wanted for / given to member m. */
  private readonly quota: number[][];
  private readonly count: number[][];
  /** Member indexes of the current (promoted) holders of each partition, in replica order. */
  private readonly holders: number[][];
  /**
   * pairs[o][b]: partitions with owner o and first backup b in `next`. Spreading these evenly
   * means that when o dies its partitions are promoted evenly onto the others, so promotion
   * alone leaves owners nearly balanced and the rebalance after it moves few owners.
   */
  private readonly pairs: number[][];

  constructor(
    private readonly members: readonly string[],
    rank: ReadonlyMap<string, number>,
    private readonly r: number,
    private readonly original: Table,
    current: Table,
  ) {
    const n = members.length;
    this.holders = current.map((replicas) => replicas.map((uuid) => rank.get(uuid) ?? -1));
    this.pos = Array.from({ length: n }, () => new Int16Array(PARTITION_COUNT).fill(-1));
    this.next = Array.from({ length: PARTITION_COUNT }, () => new Array<number | undefined>(r).fill(undefined));
    this.count = Array.from({ length: r }, () => new Array<number>(n).fill(0));
    this.pairs = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    this.quota = this.quotas();
  }

  run(): Replicas[] {
    this.keep();
    for (let i = 0; i < this.r; i++) this.fill(i);
    this.restoreOwners();
    return this.next.map((slots, p) =>
      slots.map((m, i) => {
        if (m === undefined) throw new GridError('INTERNAL', `partition assignment left partition ${p} index ${i} empty`);
        return this.members[m] as string;
      }),
    );
  }

  private holderIndex(m: number, p: number): number {
    return (this.holders[p] ?? []).indexOf(m);
  }

  private rem(i: number, m: number): number {
    return (this.quota[i]?.[m] ?? 0) - (this.count[i]?.[m] ?? 0);
  }

  private pair(p: number, i: number, m: number, delta: number): void {
    if (i > 1) return;
    const other = this.at(p, 1 - i);
    if (other === undefined) return;
    const [o, b] = i === 0 ? [m, other] : [other, m];
    (this.pairs[o] as number[])[b] = (this.pairs[o]?.[b] ?? 0) + delta;
  }

  private pairCount(p: number, i: number, m: number): number {
    if (i > 1) return 0;
    const other = this.at(p, 1 - i);
    if (other === undefined) return 0;
    return i === 0 ? (this.pairs[m]?.[other] ?? 0) : (this.pairs[other]?.[m] ?? 0);
  }

  private place(p: number, i: number, m: number): void {
    this.pair(p, i, m, 1);
    (this.next[p] as (number | undefined)[])[i] = m;
    (this.pos[m] as Int16Array)[p] = i;
    (this.count[i] as number[])[m] = (this.count[i]?.[m] ?? 0) + 1;
  }

  private unplace(p: number, i: number): void {
    const slots = this.next[p] as (number | undefined)[];
    const m = slots[i];
    if (m === undefined) return;
    this.pair(p, i, m, -1);
    slots[i] = undefined;
    (this.pos[m] as Int16Array)[p] = -1;
    (this.count[i] as number[])[m] = (this.count[i]?.[m] ?? 0) - 1;
  }

  private at(p: number, i: number): number | undefined {
    return this.next[p]?.[i];
  }

  private posOf(m: number, p: number): number {
    return this.pos[m]?.[p] ?? -1;
  }

  /**
   * quota[i][m] is floor(271/n) or its ceil. First how many ceils each member gets in all
   * (floor or ceil of r*(271 mod n)/n, which keeps totals balanced): more to the members that
   * hold more ceils now. Then, index by index, the ceils go to the members holding the most
   * slots there now, except that a member whose ceils left equal the indexes left must take
   * one (this keeps every later index fillable).
   */
  private quotas(): number[][] {
    const n = this.members.length;
    const r = this.r;
    const base = Math.floor(PARTITION_COUNT / n);
    const extra = PARTITION_COUNT - base * n;
    const cur = Array.from({ length: r }, () => new Array<number>(n).fill(0));
    this.holders.forEach((hs) =>
      hs.forEach((m, i) => {
        if (i < r && m >= 0) (cur[i] as number[])[m] = (cur[i]?.[m] ?? 0) + 1;
      }),
    );
    const members = [...Array(n).keys()];
    const ceilsNow = (m: number): number => cur.filter((row) => (row[m] ?? 0) > base).length;
    const totalNow = (m: number): number => cur.reduce((sum, row) => sum + (row[m] ?? 0), 0);
    const byPreference = [...members].sort((a, b) => ceilsNow(b) - ceilsNow(a) || totalNow(b) - totalNow(a) || a - b);
    const lo = Math.floor((r * extra) / n);
    const withHi = r * extra - lo * n;
    const left = new Array<number>(n).fill(lo);
    byPreference.slice(0, withHi).forEach((m) => (left[m] = lo + 1));
    const quota: number[][] = [];
    for (let i = 0; i < r; i++) {
      const indexesLeft = r - i;
      const row = new Array<number>(n).fill(base);
      const order = members
        .filter((m) => (left[m] ?? 0) > 0)
        .sort(
          (a, b) =>
            Number((left[b] ?? 0) === indexesLeft) - Number((left[a] ?? 0) === indexesLeft) ||
            (cur[i]?.[b] ?? 0) - (cur[i]?.[a] ?? 0) ||
            (left[b] ?? 0) - (left[a] ?? 0) ||
            a - b,
        );
      for (const m of order.slice(0, extra)) {
        row[m] = base + 1;
        left[m] = (left[m] ?? 0) - 1;
      }
      quota.push(row);
    }
    return quota;
  }

  /** Every member keeps its current slots up to its quota at that index. */
  private keep(): void {
    const n = this.members.length;
    const released = new Array<number>(PARTITION_COUNT).fill(0);
    // Owner/first-backup pairs as they are now, to give up slots of the commonest pairs first.
    const pairsNow = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    for (const [o, b] of this.holders) {
      if (o !== undefined && b !== undefined && o >= 0 && b >= 0) (pairsNow[o] as number[])[b] = (pairsNow[o]?.[b] ?? 0) + 1;
    }
    const pairOf = (p: number, i: number): [number, number] | undefined => {
      const [o, b] = this.holders[p] ?? [];
      return i <= 1 && o !== undefined && b !== undefined && o >= 0 && b >= 0 ? [o, b] : undefined;
    };
    for (let i = 0; i < this.r; i++) {
      const slots = new Map<number, number[]>();
      for (let p = 0; p < PARTITION_COUNT; p++) {
        const m = this.holders[p]?.[i];
        if (m === undefined || m < 0) continue;
        let list = slots.get(m);
        if (list === undefined) slots.set(m, (list = []));
        list.push(p);
      }
      for (const [m, ps] of slots) {
        const uuid = this.members[m] as string;
        // Give up first: slots promotion shifted (they changed anyway); then slots of
        // partitions that lost a replica (after an outside promote that is where the shifted
        // slots are); then in partitions that keep other holders and gave up the fewest;
        // then of the commonest owner/backup pair; then the lowest partition id.
        // Candidates grouped by (rank, pair); each step takes the lowest partition of the
        // group with the best rank and, among equals, the commonest pair right now.
        const groups = new Map<string, { rank: number; pair: [number, number] | undefined; ps: number[] }>();
        for (const p of ps) {
          const length = this.holders[p]?.length ?? 0;
          const kept = this.original[p]?.[i] === uuid ? 1 : 0;
          const rank = ((kept * 2 + (length < this.r ? 0 : 1)) * 2 + (length > 1 ? 0 : 1)) * 1024 + (released[p] ?? 0);
          const pair = pairOf(p, i);
          const id = `${rank}:${pair?.join(',') ?? ''}`;
          let g = groups.get(id);
          if (g === undefined) groups.set(id, (g = { rank, pair, ps: [] }));
          g.ps.push(p);
        }
        const pairNow = (pair: [number, number] | undefined): number => (pair === undefined ? 0 : (pairsNow[pair[0]]?.[pair[1]] ?? 0));
        const give = new Set<number>();
        for (let over = ps.length - (this.quota[i]?.[m] ?? 0); over > 0; over--) {
          let best: { rank: number; pair: [number, number] | undefined; ps: number[] } | undefined;
          for (const g of groups.values()) {
            if (g.ps.length === 0) continue;
            const d = best === undefined ? -1 : g.rank - best.rank || pairNow(best.pair) - pairNow(g.pair) || (g.ps[0] ?? 0) - (best.ps[0] ?? 0);
            if (d < 0) best = g;
          }
          const p = best?.ps.shift();
          if (best === undefined || p === undefined) break;
          give.add(p);
          released[p] = (released[p] ?? 0) + 1;
          if (best.pair !== undefined) (pairsNow[best.pair[0]] as number[])[best.pair[1]] = pairNow(best.pair) - 1;
        }
        for (const p of ps) if (!give.has(p)) this.place(p, i, m);
      }
    }
  }

  /** Fills the empty slots at index i. */
  private fill(i: number): void {
    // 1. Members that hold the partition's data but lost their slot (over quota, or beyond r).
    for (let p = 0; p < PARTITION_COUNT; p++) {
      if (this.at(p, i) !== undefined) continue;
      const m = (this.holders[p] ?? []).find((h) => h >= 0 && this.posOf(h, p) < 0 && this.rem(i, h) > 0);
      if (m !== undefined) this.place(p, i, m);
    }
    // 2. A backup moves up (it holds the data); its old slot is filled at its own index.
    for (let p = 0; p < PARTITION_COUNT; p++) {
      if (this.at(p, i) !== undefined) continue;
      for (let j = i + 1; j < this.r; j++) {
        const m = this.at(p, j);
        if (m !== undefined && this.rem(i, m) > 0) {
          this.unplace(p, j);
          this.place(p, i, m);
          break;
        }
      }
    }
    // 3. Members without the data, by matching; slots kept so far may be handed on if that is
    //    the only way to fill every slot at this index.
    this.match(i);
    // 4. What no matching reaches takes a chain of swaps across indexes.
    for (let p = 0; p < PARTITION_COUNT; p++) if (this.at(p, i) === undefined) this.chain(p, i);
  }

  /**
   * Fills the empty slots at index i with the members that have quota left there: greedy
   * (most quota left first), then augmenting paths slot -> member allowed there -> a slot that
   * member holds at this index -> ... -> a member with quota left. Paths go first only through
   * slots filled in this step, then also through kept slots (that replica moves), and only
   * last through a surviving owner's slot or a partition's last holder.
   */
  private match(i: number): void {
    const n = this.members.length;
    const cap = [...Array(n).keys()].map((m) => this.rem(i, m));
    const before = Array.from({ length: PARTITION_COUNT }, (_, p) => this.at(p, i));
    const who = [...before];
    // A member may take (p, i) if it is not in p, or holds p at a later index (it moves up).
    const allowed = (m: number, p: number): boolean => who[p] !== m && !(this.posOf(m, p) >= 0 && this.posOf(m, p) < i);
    const empty = [...Array(PARTITION_COUNT).keys()].filter((p) => before[p] === undefined);
    for (const p of empty) {
      // Members new to p before backups of p moving up; then the rarest owner/backup pair;
      // then the most quota left.
      const key = (m: number): number[] => [this.posOf(m, p) < 0 ? 0 : 1, this.pairCount(p, i, m), -(cap[m] ?? 0), m];
      let best = -1;
      for (let m = 0; m < n; m++) {
        if ((cap[m] ?? 0) > 0 && allowed(m, p) && (best < 0 || compareKeys(key(m), key(best)) < 0)) best = m;
      }
      if (best >= 0) {
        who[p] = best;
        cap[best] = (cap[best] ?? 0) - 1;
      }
    }
    // May the slot p (held by who[p]) be handed on, at this level of effort?
    const movable = (p: number, level: number): boolean => {
      if (before[p] === undefined || level >= 2) return true;
      if (level === 0) return false;
      const m = before[p];
      const uuid = this.members[m];
      if (i === 0 && uuid !== undefined && this.original[p]?.[0] === uuid) return false;
      const hs = this.holders[p] ?? [];
      return !hs.includes(m) || (this.next[p] ?? []).some((x, j) => j !== i && x !== undefined && hs.includes(x));
    };
    for (const start of empty) {
      for (let level = 0; level < 3 && who[start] === undefined; level++) {
        const reachedFrom = new Map<number, number>(); // member -> slot it was reached from
        const seen = new Set<number>([start]);
        const queue = [start];
        let end = -1;
        while (queue.length > 0 && end < 0) {
          const q = queue.shift() as number;
          for (let m = 0; m < n && end < 0; m++) {
            if (reachedFrom.has(m) || !allowed(m, q)) continue;
            reachedFrom.set(m, q);
            if ((cap[m] ?? 0) > 0) {
              end = m;
              break;
            }
            for (let q2 = 0; q2 < PARTITION_COUNT; q2++) {
              if (who[q2] === m && !seen.has(q2) && movable(q2, level)) {
                seen.add(q2);
                queue.push(q2);
              }
            }
          }
        }
        if (end < 0) continue;
        cap[end] = (cap[end] ?? 0) - 1;
        let m: number | undefined = end;
        while (m !== undefined) {
          const q = reachedFrom.get(m) as number;
          const previous = who[q];
          who[q] = m;
          m = previous;
        }
      }
    }
    for (let p = 0; p < PARTITION_COUNT; p++) {
      const m = who[p];
      if (m === before[p]) continue;
      this.unplace(p, i);
      if (m === undefined) continue;
      const j = this.posOf(m, p);
      if (j > i) this.unplace(p, j);
      this.place(p, i, m);
    }
  }

  /**
   * Chains may have swapped an owner that survived out of its partition. Where that owner
   * still holds the partition at index k, find a partition it owns now with the intruder at
   * index k and swap the two within both partitions: every per-index count stays the same.
   */
  private restoreOwners(): void {
    // Partitions each member owns now but did not own before: the ones it can trade.
    const tradable = new Map<number, number[]>();
    for (let q = 0; q < PARTITION_COUNT; q++) {
      const o = this.at(q, 0);
      if (o === undefined || this.original[q]?.[0] === this.members[o]) continue;
      let list = tradable.get(o);
      if (list === undefined) tradable.set(o, (list = []));
      list.push(q);
    }
    for (let p = 0; p < PARTITION_COUNT; p++) {
      const o = this.rankOf(this.original[p]?.[0]);
      const x = this.at(p, 0);
      if (o === undefined || x === undefined || x === o) continue;
      const k = this.posOf(o, p);
      const list = tradable.get(o);
      if (k <= 0 || list === undefined) continue;
      const at = list.findIndex((q) => q !== p && this.at(q, k) === x);
      const q = list[at];
      if (q === undefined) continue;
      list.splice(at, 1);
      for (const [part, a, b] of [
        [p, o, x],
        [q, x, o],
      ] as const) {
        this.unplace(part, 0);
        this.unplace(part, k);
        this.place(part, 0, a);
        this.place(part, k, b);
      }
      // q is now x's, and x did not own it before unless it was x's originally.
      if (this.original[q]?.[0] !== this.members[x]) {
        let xs = tradable.get(x);
        if (xs === undefined) tradable.set(x, (xs = []));
        xs.push(q);
      }
      const xs = tradable.get(x);
      const gone = xs?.indexOf(p) ?? -1;
      if (xs !== undefined && gone >= 0) xs.splice(gone, 1);
    }
  }

  private rankOf(uuid: string | undefined): number | undefined {
    if (uuid === undefined) return undefined;
    const m = this.members.indexOf(uuid);
    return m < 0 ? undefined : m;
  }

  /**
   * Slot (alpha, i) is empty but every member with quota left there is already in alpha.
   * Pick such a member u and a partition beta without u; swap alpha's and beta's members
   * along the alternating path that starts at u (each swap stays at one replica index, so
   * no count changes); afterwards u is no longer in alpha and takes (alpha, i). Of all
   * (u, beta) the chain that moves the fewest replicas to members without the data wins;
   * chains that would change a surviving owner or strip a partition of its holders lose.
   */
  private chain(alpha: number, i: number): void {
    let best: { cost: number; u: number; beta: number; path: number[] } | undefined;
    for (let u = 0; u < this.members.length; u++) {
      if (this.rem(i, u) <= 0) continue;
      for (let beta = 0; beta < PARTITION_COUNT; beta++) {
        if (beta === alpha || this.posOf(u, beta) >= 0) continue;
        const path = this.path(u, alpha, beta);
        const cost = this.chainCost(alpha, beta, path, i, u);
        if (best === undefined || cost < best.cost) best = { cost, u, beta, path };
      }
    }
    if (best === undefined) throw new GridError('INTERNAL', `partition assignment: no chain fills partition ${alpha} index ${i}`);
    const { u, beta, path } = best;
    const moves = path.map((j) => [this.at(alpha, j), this.at(beta, j)] as const);
    path.forEach((j) => {
      this.unplace(alpha, j);
      this.unplace(beta, j);
    });
    path.forEach((j, k) => {
      const [fromAlpha, fromBeta] = moves[k] ?? [undefined, undefined];
      if (fromBeta !== undefined) this.place(alpha, j, fromBeta);
      if (fromAlpha !== undefined) this.place(beta, j, fromAlpha);
    });
    this.place(alpha, i, u);
  }

  /** Replica indexes of the alternating alpha/beta path from member u. */
  private path(u: number, alpha: number, beta: number): number[] {
    const out: number[] = [];
    let x: number | undefined = u;
    while (x !== undefined) {
      const j = this.posOf(x, alpha);
      if (j < 0) break;
      out.push(j);
      x = this.at(beta, j);
    }
    return out;
  }

  private chainCost(alpha: number, beta: number, path: readonly number[], i: number, u: number): number {
    const after = new Map<number, (number | undefined)[]>([
      [alpha, [...(this.next[alpha] ?? [])]],
      [beta, [...(this.next[beta] ?? [])]],
    ]);
    const a = after.get(alpha) as (number | undefined)[];
    const b = after.get(beta) as (number | undefined)[];
    for (const j of path) [a[j], b[j]] = [b[j], a[j]];
    a[i] = u;
    let cost = path.length;
    for (const [p, slots] of after) {
      const before = this.next[p] ?? [];
      const hs = this.holders[p] ?? [];
      slots.forEach((m, j) => {
        if (m === undefined || m === before[j]) return;
        if (!hs.includes(m)) cost += 100; // a copy of the whole partition
        else if (this.holderIndex(m, p) > j) cost += 10; // moves up: copies what it lacks
      });
      const owner = this.members[before[0] ?? -1];
      if (owner !== undefined && owner === this.original[p]?.[0] && slots[0] !== before[0]) cost += 100_000;
      const hadHolder = before.some((m) => m !== undefined && hs.includes(m));
      if (hadHolder && !slots.some((m) => m !== undefined && hs.includes(m))) cost += 10_000;
    }
    return cost;
  }
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < a.length; k++) {
    const d = (a[k] ?? 0) - (b[k] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Which members of `next` need a copy of the partition's data: those not in `prev`, or whose index in `prev` is greater than in `next` (a backup at index j holds only structures with at least j backups). Returned with their new index, in `next` order, excluding next[0] when next[0] === prev[0]. */
export function copyTargets(prev: Replicas, next: Replicas): { uuid: string; index: number }[] {
  const out: { uuid: string; index: number }[] = [];
  next.forEach((uuid, index) => {
    const was = prev.indexOf(uuid);
    if (was < 0 || was > index) out.push({ uuid, index });
  });
  return out;
}

/** Partitions whose replicas differ between two tables. */
export function changedPartitions(a: Table, b: Table): number[] {
  const out: number[] = [];
  const length = Math.max(a.length, b.length);
  for (let p = 0; p < length; p++) {
    const x = a[p] ?? [];
    const y = b[p] ?? [];
    if (x.length !== y.length || x.some((uuid, i) => uuid !== y[i])) out.push(p);
  }
  return out;
}

/** How many replicas (owner + backups) the cluster keeps per partition: 1 + the largest backup-count + async-backup-count of any map or queue config (the `default` entries and built-in defaults included), capped at 7 (Hazelcast's maximum of 6 backups). */
export function replicaCountFor(config: GridConfig): number {
  const counts = [...config.maps, ...config.queues].map((c) => c.backupCount + c.asyncBackupCount);
  // Names that match no entry use the `default` entry, or the built-in defaults without one.
  if (!config.maps.some((m) => m.name === 'default')) counts.push(DEFAULT_MAP.backupCount + DEFAULT_MAP.asyncBackupCount);
  if (!config.queues.some((q) => q.name === 'default')) counts.push(DEFAULT_QUEUE.backupCount + DEFAULT_QUEUE.asyncBackupCount);
  return 1 + Math.min(MAX_BACKUP_COUNT, Math.max(0, ...counts));
}
