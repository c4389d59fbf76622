// The checks a queue operation passes before it changes anything: split-brain protection (on
// the member that took the request and again on the owner) and, for offers and polls of a
// persisted queue, whether the member's log can take records now.

import { PARTITION_OWNER, SplitBrainGuard, THIS_MEMBER, type ProtectedAccess } from '../invocation/split-brain-protection.js';
import type { QueueRegistry } from './queue-registry.js';

export class QueueProtection {
  /** Set when some queue config refers to an enabled split-brain protection. */
  private readonly guard: SplitBrainGuard | undefined;

  constructor(
    private readonly reg: QueueRegistry,
    clusterSize: () => number,
  ) {
    this.guard = SplitBrainGuard.of(reg.deps.config, reg.deps.config.queues, clusterSize);
  }

  /**
   * Checked on the member that received the request and again on the owner that runs the
   * operation, like maps. Confirms and releases of poll reservations, backups and
   * empty-queue-ttl destroys are never refused: they finish work already allowed.
   */
  guardHere(queueName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.reg.configOf(queueName).splitBrainProtectionRef, access, `queue '${queueName}'`, THIS_MEMBER);
  }

  guardOwner(queueName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.reg.configOf(queueName).splitBrainProtectionRef, access, `queue '${queueName}'`, PARTITION_OWNER);
    if (access === 'WRITE') this.checkPersistable(queueName);
  }

  /** An offer or poll of a persisted queue is refused before it changes anything while the member's log cannot take records. */
  checkPersistable(queueName: string): void {
    const refusal = this.reg.log.persistence?.refusal();
    if (refusal === undefined) return;
    if (this.reg.configOf(queueName).dataPersistence.enabled) throw refusal;
  }
}
