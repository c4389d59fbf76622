// Reservations of members that left: on the owner, items reserved for polls served by a member
// that is no longer in the member list go back to the queue (at once when the member is seen
// leaving, else after two sweeps found it missing).

import type { TimerHandle } from '../core/clock.js';
import type { QueueOperations } from './queue-operations.js';
import type { QueueRegistry } from './queue-registry.js';

/** How often an owner looks for reservations of members that are gone (the removal event does it at once). */
const SWEEP_INTERVAL_MS = 1_000;

export class QueueDeparted {
  /** Members seen leaving the list (bounded, oldest forgotten first): their reservations go back without waiting a sweep. */
  private readonly departed = new Set<string>();
  /** Holders found outside the member list by the last sweep: returned if still outside at the next one. */
  private absentAtLastSweep = new Set<string>();
  /** `queue\0member` of returns under way, so a sweep does not send the same one twice. */
  private readonly returning = new Set<string>();
  private readonly sweepTimer: TimerHandle | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly reg: QueueRegistry,
    private readonly ops: QueueOperations,
    /** Sweep on a timer (a member in a cluster; alone, nobody can leave). */
    sweeping: boolean,
  ) {
    this.unsubscribe = reg.deps.membership.onMembersRemoved((uuids) => {
      for (const u of uuids) {
        this.departed.add(u);
        if (this.departed.size > 1024) this.departed.delete(this.departed.values().next().value!);
      }
      this.sweep();
    });
    this.sweepTimer = sweeping ? reg.deps.clock.setInterval(() => this.sweep(), SWEEP_INTERVAL_MS) : undefined;
  }

  stop(): void {
    this.sweepTimer?.cancel();
    this.unsubscribe();
  }

  /**
   * On the owner: reservations whose holder left the member list go back to the queue. A
   * member seen leaving (membersChanged) is returned at once; a holder that is simply not in
   * the list (e.g. it left before this member became the owner) once two sweeps saw it missing.
   */
  private sweep(): void {
    if (this.reg.stopped) return;
    const membership = this.reg.deps.membership;
    const absent = new Set<string>();
    for (const [name, e] of this.reg.queues) {
      if (e.queue.reserved === 0 || !membership.isOwner(e.partitionId)) continue;
      for (const m of e.queue.holders()) {
        if (membership.isMember(m)) continue;
        absent.add(m);
        if (this.departed.has(m) || this.absentAtLastSweep.has(m)) this.returnReservationsOf(e.partitionId, name, m);
      }
    }
    this.absentAtLastSweep = absent;
  }

  private returnReservationsOf(pid: number, queueName: string, member: string): void {
    const key = `${queueName}\0${member}`;
    if (this.returning.has(key)) return;
    this.returning.add(key);
    const fail = (err: unknown): void => {
      this.returning.delete(key);
      this.reg.deps.logger.debug({ queue: queueName, member, err }, 'reservations of a member that left not returned yet (the next sweep tries again)');
    };
    try {
      const done = this.reg.deps.invoker.invoke(pid, this.ops.releaseOp(pid, queueName, member, 'left'));
      if (done instanceof Promise) done.then(() => this.returning.delete(key), fail);
      else this.returning.delete(key);
    } catch (e) {
      fail(e);
    }
  }
}
