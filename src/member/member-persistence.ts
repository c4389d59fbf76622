// A member's persistence wiring: the member log behind maps, queues, invocation and
// partitions; the restart from persisted data (recovery wait, stale data); the cluster-wide
// PERSISTENCE commands (partialStart, forceStart, backup); member.json. Built by Member only
// when `persistence` is enabled.

import type { GridConfig } from '../config/index.js';
import type { Logger } from '../core/logger.js';
import { GridError, describeError } from '../core/errors.js';
import type { ClusterService } from '../cluster/cluster-service.js';
import type { PartitionService } from '../partition/partition-service.js';
import type { ClusterInvoker } from '../invocation/invoker.js';
import type { MemberNet } from '../net/member-net.js';
import type { MapService } from '../map/map-service.js';
import type { QueueService } from '../queue/queue-service.js';
import type { OpenedStore, PersistedState, PersistenceService } from '../persistence/persistence-service.js';
import { LogOp } from '../persistence/log-format.js';
import { diskStateName } from '../persistence/disk-state.js';
import { PARTITION_HASH_VERSION } from '../partition/partitioning.js';
import { Msg } from '../protocol/messages.js';
import {
  decodePersistenceCommand,
  decodePersistenceCommandAnswer,
  encodePersistenceCommand,
  encodePersistenceCommandAnswer,
  type PersistenceCommandAnswer,
  type PersistenceCommandName,
} from '../protocol/payloads.js';
import type { PersistenceHealth } from '../rest/context.js';

export interface MemberPersistenceDeps {
  readonly config: GridConfig;
  readonly logger: Logger;
  readonly uuid: string;
  /** This member's address (known once its port is bound). */
  address(): string;
  readonly persistence: PersistenceService;
  readonly cluster: ClusterService;
  readonly partitions: PartitionService;
  readonly maps: MapService;
  readonly queues: QueueService;
  readonly net: MemberNet;
  /** Whether a shutdown was asked for while the restart waited (it stops instead of starting). */
  shutdownWhileRecovering(): boolean;
}

export class MemberPersistence {
  private lastSavedState: PersistedState | undefined;
  /** Set when the data came from an older partition hash version: re-homed in memory, to be rewritten by convertData(). */
  private conversion: { readonly from: number; readonly entries: number; readonly queues: number } | undefined;
  /** Set when this restarting member refused the cluster's table (stale data, auto-remove-stale-data false): its start fails with it. */
  private staleRefusal: string | undefined;

  constructor(private readonly d: MemberPersistenceDeps) {}

  /**
   * Persisted maps write through the member log; a write answers once persisted. Partition
   * data that leaves or is replaced is dropped in the log first (registered before the data
   * services, so their copies of an incoming partition land after the drop).
   */
  wire(opened: OpenedStore, invoker: ClusterInvoker): void {
    const { persistence, maps, queues, partitions, config, logger } = this.d;
    maps.setPersistence(persistence);
    queues.setPersistence(persistence);
    invoker.setDurability(persistence);
    partitions.setDurability(persistence);
    partitions.register({
      name: 'persistence',
      snapshot: () => undefined,
      install: (pid) => persistence.append({ op: LogOp.DropPartition, partitionId: pid }, false),
      drop: (pid) => persistence.append({ op: LogOp.DropPartition, partitionId: pid }, false),
      ownershipLost: () => undefined,
      trim: () => undefined,
    });
    const started = Date.now();
    const entries = maps.restorePersisted(opened.records);
    const items = queues.restorePersisted(opened.records);
    if (opened.partitionHash !== PARTITION_HASH_VERSION) {
      // An older Grid's data (open() refused what cannot be converted here): every record to its new partition.
      this.conversion = { from: opened.partitionHash, entries: maps.rehomePersisted(), queues: queues.rehomePersisted() };
    }
    const ms = opened.loadMs + Date.now() - started;
    logger.info(
      { dir: opened.dir, entries, items, bytes: opened.bytes, readMs: opened.loadMs, restoreMs: Date.now() - started, entriesPerSecond: ms > 0 ? Math.round(((entries + items) * 1000) / ms) : null },
      opened.state === undefined && entries + items === 0
        ? `persistence: no persisted data in ${opened.dir}; starting empty`
        : `persistence: loaded ${entries} map entries and ${items} queue items (${opened.bytes} bytes) from ${opened.dir} in ${ms} ms`,
    );
    persistence.startLogging(function* () {
      yield* maps.persistedRecords();
      yield* queues.persistedRecords();
    });
    const state = opened.state;
    if (state !== undefined && state.partitionTableVersion > 0 && state.clusterName === config.clusterName) {
      const autoRemove = config.persistence.autoRemoveStaleData;
      partitions.setRecovery({
        expected: state.members.map((m) => m.uuid),
        policy: config.persistence.clusterDataRecoveryPolicy,
        rows: state.partitions,
        version: state.partitionTableVersion,
        stale: (version) => {
          if (autoRemove) {
            persistence.wipe();
            return 'drop';
          }
          // The start fails with this (awaitRecovery), once: the master repeats its table.
          if (this.staleRefusal === undefined) {
            this.staleRefusal =
              `persistence: this member's data is stale (the cluster's partition table is at version ${version}, the persisted one at ${state.partitionTableVersion}) ` +
              `and auto-remove-stale-data is false: delete ${persistence.dir ?? 'the persistence directory'} to join as a new member`;
            logger.error(this.staleRefusal);
            partitions.abandonRecovery();
          }
          return 'refuse';
        },
      });
    }
    // What the member persists about its cluster follows every table and member list.
    let saving = false;
    const save = (): void => {
      if (saving) return;
      saving = true;
      setImmediate(() => {
        saving = false;
        this.saveState(false);
      });
    };
    partitions.onTableApplied(save);
    this.d.cluster.on((e) => {
      if (e.type === 'membersChanged') save();
    });
  }

  /**
   * Data of an older partition hash version, re-homed in memory by wire(): its log is
   * rewritten (a snapshot of the data, then the directory marked with this version) before the
   * member joins or serves anything. A crash meanwhile converts again at the next start.
   */
  async convertData(): Promise<void> {
    const c = this.conversion;
    if (c === undefined) return;
    const { persistence, maps, queues, logger } = this.d;
    const started = Date.now();
    logger.info(
      `persistence: the data in ${persistence.dir ?? '?'} was written under partition hash version ${c.from}; converting it to version ${PARTITION_HASH_VERSION} (Hazelcast's): ` +
        `${c.entries} map entries and ${c.queues} queues moved to their new partitions`,
    );
    await persistence.convert(function* () {
      yield* maps.persistedRecords();
      yield* queues.persistedRecords();
    });
    this.conversion = undefined;
    logger.info(`persistence: data converted to partition hash version ${PARTITION_HASH_VERSION} in ${Date.now() - started} ms`);
  }

  /** Whether the member log takes writes (GET /health's `persistence`). */
  health(): PersistenceHealth | undefined {
    const s = this.d.persistence.diskState();
    if (s === undefined) return undefined;
    return { state: diskStateName(s.kind), ...(s.reason === undefined ? {} : { reason: s.reason }), since: s.sinceMs };
  }

  /**
   * A restart from persisted data: wait (validation-timeout-seconds) for the members of the
   * persisted member list; then FULL_RECOVERY_ONLY fails the start, a partial policy starts
   * with the members present (the master decides). partialStart / forceStart over REST end
   * the wait early.
   */
  async awaitRecovery(): Promise<void> {
    const { partitions, logger } = this.d;
    const cfg = this.d.config.persistence;
    const validationMs = cfg.validationTimeoutSeconds * 1000;
    // Refused while joining (the table came with the member list), or while waiting below.
    if (this.staleRefusal !== undefined) throw new GridError('CONFLICT', this.staleRefusal);
    logger.info(`cluster restart: waiting up to ${cfg.validationTimeoutSeconds} s for the members of the persisted member list`);
    if (await partitions.waitForTable(validationMs)) return;
    if (this.staleRefusal !== undefined) throw new GridError('CONFLICT', this.staleRefusal);
    if (this.d.shutdownWhileRecovering()) return;
    const missing = partitions.recoveryMissing();
    if (cfg.clusterDataRecoveryPolicy === 'FULL_RECOVERY_ONLY' && !partitions.isPartialRequested()) {
      const msg =
        `cluster restart failed: ${missing.length} member(s) of the persisted member list did not come back within validation-timeout-seconds (${cfg.validationTimeoutSeconds} s): ` +
        `${missing.join(', ') || `(none missing: ${partitions.recoveryProblem() ?? 'the master did not install the persisted table'})`}; cluster-data-recovery-policy is FULL_RECOVERY_ONLY. ` +
        'Start the missing members, or call partialStart (start with the members present) or forceStart (start empty).';
      logger.error(msg);
      throw new GridError('CONFLICT', msg);
    }
    partitions.recoverPartially();
    if (!(await partitions.waitForTable(cfg.dataLoadTimeoutSeconds * 1000))) {
      if (this.staleRefusal !== undefined) throw new GridError('CONFLICT', this.staleRefusal);
      if (this.d.shutdownWhileRecovering()) return;
      const msg = `cluster restart failed: no partition table within data-load-timeout-seconds (${cfg.dataLoadTimeoutSeconds} s) after a partial start`;
      logger.error(msg);
      throw new GridError('CONFLICT', msg);
    }
  }

  /**
   * A PERSISTENCE endpoint: every member (this one included) is told; accepted when any
   * member accepted it (partialStart / forceStart act on the restarting master; a backup runs
   * on every member, into `backup-dir/backup-<sequence>`).
   */
  async command(command: PersistenceCommandName): Promise<PersistenceCommandAnswer> {
    const { cluster, net, uuid } = this.d;
    const sequence = command === 'backup' ? Date.now() : 0;
    const payload = encodePersistenceCommand({ command, sequence });
    const answers = await Promise.all(
      cluster.members().map((m) =>
        m.uuid === uuid
          ? Promise.resolve(this.onCommand(command, sequence))
          : net.request(m.address, Msg.PersistenceCommand, payload, 10_000).then(decodePersistenceCommandAnswer, (e: unknown) => ({ accepted: false, message: `${m.address}: ${describeError(e)}` })),
      ),
    );
    if (!cluster.members().some((m) => m.uuid === uuid)) answers.push(this.onCommand(command, sequence));
    const accepted = answers.filter((a) => a.accepted);
    if (accepted.length > 0) return { accepted: true, message: accepted[0]!.message };
    return { accepted: false, message: answers[0]?.message ?? 'no member answered' };
  }

  /** This member's part of a PERSISTENCE command. */
  onCommand(command: PersistenceCommandName, sequence: number): PersistenceCommandAnswer {
    const { persistence: p, partitions, logger } = this.d;
    switch (command) {
      case 'partialStart':
        return partitions.recoverPartially()
          ? { accepted: true, message: 'partial start triggered' }
          : { accepted: false, message: 'the cluster is not restarting from persisted data' };
      case 'forceStart':
        return partitions.recoverFresh()
          ? { accepted: true, message: 'force start triggered' }
          : { accepted: false, message: 'the cluster is not restarting from persisted data' };
      case 'backup':
        if (this.d.config.persistence.backupDir === undefined) return { accepted: false, message: 'no backup-dir is configured' };
        if (p.backupInProgress()) return { accepted: false, message: 'a backup is already running' };
        p.backup(sequence).then(
          (r) => logger.info({ dir: r.dir, bytes: r.bytes }, `persistence: backup ${sequence} written to ${r.dir} (${r.bytes} bytes)`),
          (e: unknown) => logger.warn(`persistence: backup ${sequence} not written: ${describeError(e)}`),
        );
        return { accepted: true, message: `backup ${sequence} started` };
      case 'backupInterrupt':
        return p.interruptBackup() ? { accepted: true, message: 'backup interrupted' } : { accepted: false, message: 'no backup is running' };
    }
  }

  /**
   * member.json: identity, member list, partition table. Not while the cluster is PASSIVE or
   * this member stops (members leaving a cluster shutdown are not removed from its persisted
   * list); a graceful stop only marks the last one clean.
   */
  saveState(clean: boolean): void {
    const { persistence: p, partitions, cluster } = this.d;
    if (partitions.table.version() === 0 || partitions.isRecovering()) return;
    try {
      if (clean) {
        if (this.lastSavedState !== undefined) p.saveState({ ...this.lastSavedState, clean: true, savedAt: Date.now() });
        return;
      }
      if (cluster.state() === 'PASSIVE' || cluster.isShuttingDown()) return;
      p.saveState((this.lastSavedState = {
        uuid: this.d.uuid,
        clusterName: this.d.config.clusterName,
        address: this.d.address(),
        members: cluster
          .members()
          .filter((m) => !m.liteMember)
          .map((m) => ({ uuid: m.uuid, address: m.address })),
        partitionTableVersion: partitions.table.version(),
        partitions: partitions.table.snapshot(),
        clean: false,
        savedAt: Date.now(),
      }));
    } catch (e) {
      this.d.logger.error(`persistence: saving the member state failed: ${describeError(e)}`);
    }
  }
}

/** This member's part of a PERSISTENCE command: every member answers, one without persistence with a refusal. */
export function answerPersistenceCommand(persistence: MemberPersistence | undefined, command: PersistenceCommandName, sequence: number): PersistenceCommandAnswer {
  return persistence === undefined ? { accepted: false, message: 'persistence is not enabled on this member' } : persistence.onCommand(command, sequence);
}

/** Answers the PERSISTENCE commands other members send (registered before the member port opens). */
export function handlePersistenceCommands(net: MemberNet, persistence: MemberPersistence | undefined): void {
  net.handle(Msg.PersistenceCommand, (p) => {
    const c = decodePersistenceCommand(p);
    return encodePersistenceCommandAnswer(answerPersistenceCommand(persistence, c.command, c.sequence));
  });
}
