// The partition layer's member protocol handlers on every member: tables pushed by the master,
// its migration orders (and the source side of a migration: block writes, copy the partition to
// each replica that lacks it), partition copies coming in, and a restart's questions about this
// member's persisted table. Who may send what is decided by the pure rules (member-rules.ts,
// migration-rules.ts); these handlers do the I/O.

import { GridError } from '../core/errors.js';
import type { WireValue } from '../protocol/codec.js';
import { Msg } from '../protocol/messages.js';
import {
  decodeEmpty,
  decodeMigrate,
  decodeMigrateEnd,
  decodePartitionData,
  decodeRecoveryState,
  encodePartitionData,
  encodeRecoveryStateAnswer,
} from '../protocol/payloads.js';
import type { MemberNet } from '../net/member-net.js';
import { copyTargets, type Replicas } from './assignment.js';
import { checkPartitionWriteFrom } from './partition-table.js';
import { sourceRefusal } from './migration-rules.js';
import { rowsHash, type PartitionContext } from './partition-context.js';
import type { PartitionTables } from './partition-tables.js';

export class PartitionHandlers {
  constructor(
    private readonly ctx: PartitionContext,
    private readonly tables: PartitionTables,
  ) {}

  /** Answer the partition messages of other members (the master's tables and orders, copies, restarts). */
  register(net: MemberNet): void {
    net.handleOneWay(Msg.PartitionTable, (p, from) => {
      const master = this.ctx.cluster.master();
      if (from.peer !== undefined && master !== undefined && from.peer.uuid !== master.uuid) return;
      const t = this.tables.decodeTable(p);
      this.ctx.lastKnownQueueSize = t.queueSize;
      if (t.version > this.ctx.table.version() && this.tables.recovered(t.version, t.rows)) this.tables.apply(t.rows, t.version);
      if (this.ctx.unblockOnTableFrom !== undefined && from.peer?.uuid === this.ctx.unblockOnTableFrom) {
        // The new master's table is in: migrations of the old master it did not commit are void.
        this.ctx.unblockOnTableFrom = undefined;
        for (const pid of [...this.tables.blocked.keys()]) this.tables.unblock(pid);
      }
    });
    net.handleOneWay(Msg.RecoveryDrop, (p, from) => {
      decodeEmpty(p, 'recovery drop');
      // Only the master decides whose data a restart keeps.
      if (this.ctx.recovery === undefined || from.peer?.uuid !== this.ctx.cluster.master()?.uuid) return;
      this.ctx.recovery.fresh = true;
    });
    net.handle(Msg.RecoveryState, (p) => {
      const q = decodeRecoveryState(p);
      const r = this.ctx.recovery;
      if (r === undefined) return encodeRecoveryStateAnswer({ version: 0, hash: '', table: undefined });
      return encodeRecoveryStateAnswer({ version: r.plan.version, hash: rowsHash(r.plan.rows), table: q.withRows ? { version: r.plan.version, rows: r.plan.rows } : undefined });
    });
    net.handle(Msg.FetchTable, (p) => {
      decodeEmpty(p, 'fetch table');
      return this.tables.encodeTable();
    });
    net.handle(Msg.Migrate, (p, from) => {
      const t = decodeMigrate(p);
      if (from.peer?.uuid !== this.ctx.cluster.master()?.uuid) {
        throw new GridError('WRONG_TARGET', `migration ordered by ${from.peer?.address ?? 'unknown'}, which is not the master`);
      }
      return this.runMigration(t.partitionId, t.replicas, t.previousReplicas);
    });
    net.handleOneWay(Msg.MigrateEnd, (p, from) => {
      if (from.peer?.uuid !== this.ctx.cluster.master()?.uuid) return;
      const pid = decodeMigrateEnd(p).partitionId;
      this.tables.unblock(pid);
    });
    net.handle(Msg.PartitionData, (p, from) => {
      const t = decodePartitionData(p);
      const pid = t.partitionId;
      // Only the partition's owner copies it (the migration source the master chose is always
      // the owner): a member with an older view, or one removed while paused, is refused.
      checkPartitionWriteFrom('partition copy', pid, from.peer?.uuid ?? '', t.tableVersion, this.ctx.table);
      if (this.ctx.cluster.fenced()) throw new GridError('STALE_VIEW', `partition copy for partition ${pid} refused: this member is checking its membership`);
      // A restarting member takes no copy before its first table: that table may find its data
      // stale, and the wipe would delete the copy after it was acknowledged (the master would
      // commit a replica whose data is nowhere here, on disk or in memory). The master retries.
      if (this.ctx.recovery !== undefined) throw new GridError('RECOVERING', `partition copy for partition ${pid} refused: this member is restarting from persisted data and has no partition table yet`);
      const { replicaIndex: index, versions, data: perService } = t;
      this.tables.incoming.set(pid, this.ctx.clock.now());
      this.tables.forEachService((s) => s.install(pid, perService[s.name]));
      // The replica starts at the copy's versions (from an older sender: unknown, so anti-entropy copies it again).
      if (versions !== undefined && index >= 0) this.tables.replicaSync.versions.install(pid, index, versions);
      else this.tables.replicaSync.versions.markUnknown(pid);
      // Persisted here before the source may let it go.
      const pending = this.tables.durabilityPending();
      return pending === undefined ? null : pending.then(() => null);
    });
  }

  /** Source side of a migration: stop writes, copy the partition to every replica that needs it. */
  async runMigration(pid: number, next: Replicas, prev: Replicas): Promise<WireValue> {
    const row = this.ctx.table.replicas(pid);
    // Copies are worked out from the master's row: ours must be the same, or we would skip one.
    const refusal = sourceRefusal(pid, { me: this.ctx.localUuid, row, prev, fenced: this.ctx.cluster.fenced() });
    if (refusal !== undefined) throw refusal;
    this.tables.block(pid, row);
    try {
      const targets = copyTargets(row, next);
      await Promise.all(
        targets.map(({ uuid, index }) => {
          const member = this.ctx.cluster.memberByUuid(uuid);
          if (member === undefined) throw new GridError('MEMBER_UNREACHABLE', `member ${uuid} is not in the cluster`);
          // The copy and the backup versions it is exact for, in one synchronous step.
          const data = this.tables.snapshotAll(pid, index);
          const versions = this.tables.replicaSync.versions.copyVersions(pid);
          return this.ctx.net!.request(member.address, Msg.PartitionData, encodePartitionData({ partitionId: pid, replicaIndex: index, data, tableVersion: this.ctx.table.version(), versions }), this.ctx.tuning.callTimeoutMs);
        }),
      );
      return null;
    } catch (e) {
      this.tables.unblock(pid);
      throw e;
    }
  }
}
