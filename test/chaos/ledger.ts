// The chaos suite's record of every operation the clients made, and the checker that judges
// what the cluster gave back against it. Pure: no sockets, no timers, no clock; the driver
// (chaos-run.ts) feeds it answers as they arrive.
//
// Maps. Every key belongs to one client, which writes it sequentially (a write starts only
// after the previous one to that key got its answer or its error), and each value names its
// write: `<client>.<seq>`, seq increasing per client. A read of a key must return
//   - the value of the last acknowledged (200) write, or
//   - the value of a LATER write that got no 200 (an error, no answer: it may have been
//     applied all the same, and then it is newer than the acknowledged one), or
//   - the value of any write the client abandoned (gave up waiting before the cluster's own
//     call timeout: it may still be applied at any time), or
//   - nothing (204), only when no write of the key was acknowledged.
// A value of an earlier write is REVERTED; no value after an acknowledged write is LOST; a
// value nobody wrote to this key is UNKNOWN. Why an earlier un-acknowledged write may not land
// late: the driver waits longer than the cluster's call timeout, so a non-200 answer or a
// broken connection means the cluster is done with that request (the forwarding member died,
// or the owner gave up): its effect, if any, precedes the client's next write.
//
// Queues. Every item is unique (`<client>.<seq>`). An item whose offer was answered 200 must be
// returned by some poll (during the run or the final drain): otherwise LOST. An item returned
// by more than one poll is a DUPLICATE (allowed: queues are at-least-once across failures, but
// counted). An item nobody offered to that queue is UNKNOWN.

export type Phase = 'run' | 'final';

export interface MapWrite {
  readonly client: number;
  readonly map: string;
  readonly key: string;
  readonly seq: number;
  readonly value: string;
}

export interface QueueOffer {
  readonly client: number;
  readonly queue: string;
  readonly seq: number;
  readonly item: string;
}

interface WriteState {
  readonly seq: number;
  readonly value: string;
  /** HTTP status of the answer, 0 for no answer; undefined while in flight. */
  status: number | undefined;
  /** The client gave up waiting before the cluster could have: may be applied any time. */
  abandoned: boolean;
}

interface KeyState {
  readonly map: string;
  readonly key: string;
  readonly client: number;
  /** In write order. */
  readonly writes: WriteState[];
  finalReads: number;
}

interface OfferState {
  readonly queue: string;
  readonly item: string;
  status: number | undefined;
  /** The driver's words on the answer (when, through which member), shown with a violation. */
  note: string | undefined;
}

export interface Violation {
  readonly subject: 'map' | 'queue';
  readonly kind: 'lost' | 'reverted' | 'unknown' | 'unverified';
  readonly phase: Phase | 'check';
  /** `<map>/<key>` or `<queue>/<item>`. */
  readonly where: string;
  readonly detail: string;
}

export interface MapReport {
  readonly keys: number;
  readonly writesAcked: number;
  /** Answered, but not 200 (or no answer at all): may or may not have been applied. */
  readonly writesInDoubt: number;
  readonly writesAbandoned: number;
  readonly readsDuringRun: number;
  readonly finalReads: number;
  /** Reads that failed (no answer, or a status other than 200/204): not judged. */
  readsFailed: number;
  /** Reads that returned a later write that had no 200 (allowed, informative). */
  readsOfInDoubtWrites: number;
  /** Distinct keys with at least one violation of that kind. */
  readonly lostKeys: number;
  readonly revertedKeys: number;
  readonly unknownKeys: number;
  /** Keys with an acknowledged write that the final read-back never reached. */
  readonly unverifiedKeys: number;
}

export interface QueueReport {
  readonly offersAcked: number;
  readonly offersInDoubt: number;
  /** Polls that returned an item (run and drain). */
  readonly deliveries: number;
  readonly lost: number;
  /** Items returned more than once, and the extra deliveries in total. */
  readonly duplicatedItems: number;
  readonly duplicateDeliveries: number;
  readonly unknown: number;
  /** Offers without a 200 whose item was delivered anyway (allowed, informative). */
  readonly inDoubtDelivered: number;
  /** Queues that were offered to but never drained at the end. */
  readonly undrained: readonly string[];
}

export interface Report {
  readonly map: MapReport;
  readonly queue: QueueReport;
  /** Every violation (lost, reverted, unknown, unverified), maps then queues. */
  readonly violations: readonly Violation[];
  /** Duplicated items with their delivery count (not violations). */
  readonly duplicates: readonly { readonly queue: string; readonly item: string; readonly times: number }[];
  /** True when nothing acknowledged was lost, reverted or left unchecked, and nothing unknown came back. */
  readonly ok: boolean;
}

const parseSeq = (value: string, client: number): number | undefined => {
  const m = /^(\d+)\.(\d+)$/.exec(value);
  return m && Number(m[1]) === client ? Number(m[2]) : undefined;
};

export class Ledger {
  private readonly keys = new Map<string, KeyState>();
  private readonly offers = new Map<string, OfferState>();
  /** item -> queues it was delivered from, one entry per delivery. */
  private readonly deliveries = new Map<string, string[]>();
  private readonly nextSeq = new Map<number, number>();
  private readonly drainedQueues = new Set<string>();
  private readonly violations: Violation[] = [];
  private readsDuringRun = 0;
  private finalReads = 0;
  private readsFailed = 0;
  private readsOfInDoubtWrites = 0;

  private seq(client: number): number {
    const n = this.nextSeq.get(client) ?? 1;
    this.nextSeq.set(client, n + 1);
    return n;
  }

  // ------------------------------------------------------------ maps

  /** A client is about to write `key`: returns the value to write. */
  beginPut(client: number, map: string, key: string): MapWrite {
    const id = `${map}/${key}`;
    let k = this.keys.get(id);
    if (k === undefined) {
      k = { map, key, client, writes: [], finalReads: 0 };
      this.keys.set(id, k);
    }
    if (k.client !== client) throw new Error(`${id} belongs to client ${k.client}, not ${client}`);
    const last = k.writes[k.writes.length - 1];
    if (last !== undefined && last.status === undefined) throw new Error(`${id}: write ${last.seq} is still in flight (writes to a key are sequential)`);
    const seq = this.seq(client);
    const value = `${client}.${seq}`;
    k.writes.push({ seq, value, status: undefined, abandoned: false });
    return { client, map, key, seq, value };
  }

  /** The answer to a write: its HTTP status, 0 when none came; `abandoned` when the client gave up waiting. */
  endPut(w: MapWrite, status: number, opts: { abandoned?: boolean } = {}): void {
    const state = this.keys.get(`${w.map}/${w.key}`)?.writes.find((x) => x.seq === w.seq);
    if (state === undefined) throw new Error(`unknown write ${w.map}/${w.key} #${w.seq}`);
    if (state.status !== undefined) throw new Error(`write ${w.map}/${w.key} #${w.seq} ended twice`);
    state.status = status;
    state.abandoned = opts.abandoned === true;
  }

  /**
   * A read of `key` and its answer: `status` 200 with `body`, 204 for no entry, anything else
   * (0 = no answer) a failed read, not judged. No write of the key may be in flight. Returns
   * the violation found, if any.
   */
  read(map: string, key: string, phase: Phase, via: string, status: number, body: string): Violation | undefined {
    const id = `${map}/${key}`;
    const k = this.keys.get(id);
    if (k === undefined) throw new Error(`${id} was never written`);
    const last = k.writes[k.writes.length - 1];
    if (last !== undefined && last.status === undefined) throw new Error(`${id}: read while write ${last.seq} is in flight`);
    if (phase === 'run') this.readsDuringRun++;
    else this.finalReads++;
    if (status !== 200 && status !== 204) {
      this.readsFailed++;
      return undefined;
    }
    if (phase === 'final') k.finalReads++;
    let ackAt = -1;
    for (let i = k.writes.length - 1; i >= 0; i--) {
      if (k.writes[i]?.status === 200) {
        ackAt = i;
        break;
      }
    }
    const acked = k.writes[ackAt];
    const describe = (): string =>
      `last acknowledged ${acked ? `${acked.value}` : 'none'}; writes ${k.writes.map((w) => `${w.value}=${w.status ?? '…'}${w.abandoned ? '(abandoned)' : ''}`).slice(-6).join(' ')}`;
    let v: Violation | undefined;
    if (status === 204) {
      if (acked !== undefined) v = { subject: 'map', kind: 'lost', phase, where: id, detail: `read through ${via} found no entry; ${describe()}` };
    } else {
      const at = k.writes.findIndex((w) => w.value === body);
      const w = k.writes[at];
      if (w === undefined) {
        const seq = parseSeq(body, k.client);
        v = { subject: 'map', kind: 'unknown', phase, where: id, detail: `read through ${via} returned ${JSON.stringify(body.slice(0, 60))}${seq === undefined ? '' : ' (not a write of this key)'}; ${describe()}` };
      } else if (at === ackAt) {
        // the acknowledged value
      } else if (at > ackAt || w.abandoned) {
        this.readsOfInDoubtWrites++;
      } else {
        v = { subject: 'map', kind: 'reverted', phase, where: id, detail: `read through ${via} returned ${w.value} (answered ${w.status ?? '…'}); ${describe()}` };
      }
    }
    if (v !== undefined) this.violations.push(v);
    return v;
  }

  /** Every key written so far (for the final read-back). */
  writtenKeys(): { map: string; key: string }[] {
    return [...this.keys.values()].map((k) => ({ map: k.map, key: k.key }));
  }

  // ------------------------------------------------------------ queues

  /** A client is about to offer to `queue`: returns the item to offer. */
  beginOffer(client: number, queue: string): QueueOffer {
    const seq = this.seq(client);
    const item = `${client}.${seq}`;
    this.offers.set(item, { queue, item, status: undefined, note: undefined });
    return { client, queue, seq, item };
  }

  /** The answer to an offer (0 = none); `note` (when, through which member) is shown if the item goes missing. */
  endOffer(o: QueueOffer, status: number, note?: string): void {
    const s = this.offers.get(o.item);
    if (s === undefined) throw new Error(`unknown offer ${o.item}`);
    if (s.status !== undefined) throw new Error(`offer ${o.item} ended twice`);
    s.status = status;
    s.note = note;
  }

  /** A poll on `queue` returned `item` (any 200 poll, during the run or the drain). */
  polled(queue: string, item: string): void {
    const d = this.deliveries.get(item);
    if (d === undefined) this.deliveries.set(item, [queue]);
    else d.push(queue);
  }

  /** The final drain of `queue` is complete (every member answered an empty poll). */
  drained(queue: string): void {
    this.drainedQueues.add(queue);
  }

  queuesOffered(): string[] {
    return [...new Set([...this.offers.values()].map((o) => o.queue))];
  }

  // ------------------------------------------------------------ the verdict

  check(): Report {
    const violations: Violation[] = [...this.violations];
    let writesAcked = 0;
    let writesInDoubt = 0;
    let writesAbandoned = 0;
    for (const k of this.keys.values()) {
      for (const w of k.writes) {
        if (w.status === 200) writesAcked++;
        else if (w.abandoned) writesAbandoned++;
        else writesInDoubt++;
      }
      if (k.finalReads === 0 && k.writes.some((w) => w.status === 200)) {
        violations.push({ subject: 'map', kind: 'unverified', phase: 'check', where: `${k.map}/${k.key}`, detail: 'acknowledged writes, but the final read-back never reached this key' });
      }
    }
    const distinct = (kind: Violation['kind']): number => new Set(violations.filter((v) => v.kind === kind).map((v) => v.where)).size;
    const map: MapReport = {
      keys: this.keys.size,
      writesAcked,
      writesInDoubt,
      writesAbandoned,
      readsDuringRun: this.readsDuringRun,
      finalReads: this.finalReads,
      readsFailed: this.readsFailed,
      readsOfInDoubtWrites: this.readsOfInDoubtWrites,
      lostKeys: distinct('lost'),
      revertedKeys: distinct('reverted'),
      unknownKeys: distinct('unknown'),
      unverifiedKeys: distinct('unverified'),
    };

    const queueViolations: Violation[] = [];
    const duplicates: { queue: string; item: string; times: number }[] = [];
    let offersAcked = 0;
    let offersInDoubt = 0;
    let inDoubtDelivered = 0;
    let deliveries = 0;
    for (const o of this.offers.values()) {
      const got = this.deliveries.get(o.item)?.filter((q) => q === o.queue).length ?? 0;
      if (o.status === 200) {
        offersAcked++;
        if (got === 0) queueViolations.push({ subject: 'queue', kind: 'lost', phase: 'check', where: `${o.queue}/${o.item}`, detail: `offer answered 200${o.note ? ` (${o.note})` : ''}, no poll ever returned the item` });
      } else {
        offersInDoubt++;
        if (got > 0) inDoubtDelivered++;
      }
    }
    for (const [item, queues] of this.deliveries) {
      deliveries += queues.length;
      const offer = this.offers.get(item);
      for (const q of new Set(queues)) {
        const times = queues.filter((x) => x === q).length;
        if (offer === undefined || offer.queue !== q) {
          queueViolations.push({ subject: 'queue', kind: 'unknown', phase: 'check', where: `${q}/${item}`, detail: offer === undefined ? 'polled, never offered' : `polled from ${q}, offered to ${offer.queue}` });
        } else if (times > 1) {
          duplicates.push({ queue: q, item, times });
        }
      }
    }
    const undrained = this.queuesOffered().filter((q) => !this.drainedQueues.has(q));
    for (const q of undrained) queueViolations.push({ subject: 'queue', kind: 'unverified', phase: 'check', where: q, detail: 'offered to, never drained at the end' });
    const queue: QueueReport = {
      offersAcked,
      offersInDoubt,
      deliveries,
      lost: queueViolations.filter((v) => v.kind === 'lost').length,
      duplicatedItems: duplicates.length,
      duplicateDeliveries: duplicates.reduce((a, d) => a + d.times - 1, 0),
      unknown: queueViolations.filter((v) => v.kind === 'unknown').length,
      inDoubtDelivered,
      undrained,
    };
    const all = [...violations, ...queueViolations];
    return { map, queue, violations: all, duplicates, ok: all.length === 0 };
  }
}
