// The composition root: builds every service of one member from a GridConfig and runs the
// phased lifecycle. Start: bind -> join -> partitions -> data services -> REST. Stop mirrors
// it: REST closes first, data services answer their waiters, sockets close last.
// It stays one file past 700 lines on purpose: it is the one place every service is built and
// wired to the others, in start order, so a reader sees the whole member's shape here; the
// services' own logic lives in their modules.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import type net from 'node:net';
import { systemClock, type Clock } from '../core/clock.js';
import { createLogControl, parseLogLevel, type DestinationStream, type LogControl, type Logger } from '../core/logger.js';
import { generateInstanceName } from '../core/names.js';
import type { MemoryGuard } from '../core/memory-guard.js';
import { memoryGuardOf } from './memory-limit.js';
import { expandMemberList, listenPlan, tlsPlan, type EndpointGroupName, type GridConfig, type ListenPlan } from '../config/index.js';
import { ClusterService } from '../cluster/cluster-service.js';
import type { MemberInfo } from '../cluster/types.js';
import { PartitionService } from '../partition/partition-service.js';
import { replicaCountFor } from '../partition/assignment.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { ClientServer, nameUuid } from '../client/client-server.js';
import type { ViewMember } from '../client/cluster-view-codec.js';
import { HAZELCAST_COMPAT_VERSION } from '../client/message-ids.js';
import { ClusterInvoker } from '../invocation/invoker.js';
import { memberStallBounds } from '../net/stall-detector.js';
import { MemberNet } from '../net/member-net.js';
import { describeError } from '../core/errors.js';
import { MapService, type MapMergeBatch } from '../map/map-service.js';
import { QueueService, type QueueMergeBatch } from '../queue/queue-service.js';
import { createCredentialChecker, createMemberAuth, type CredentialChecker } from '../security/credentials.js';
import { Listener, inSharedReadBuffer, setReadSink } from '../net/listener.js';
import { TlsEndpoints } from '../net/tls/tls-endpoints.js';
import { RestServer } from '../rest/rest-server.js';
import { loadConsoleAssets } from '../rest/console-assets.js';
import { WanService } from '../wan/wan-service.js';
import { EventJournal } from '../events/event-journal.js';
import { EventService } from '../events/event-service.js';
import { QueueEventService } from '../events/queue-event-service.js';
import { CpService } from '../cp/cp-service.js';
import { GridMetrics } from '../metrics/grid-metrics.js';
import { PersistenceService, type OpenedStore } from '../persistence/persistence-service.js';
import { MemberPersistence, answerPersistenceCommand, handlePersistenceCommands } from './member-persistence.js';
import type { RestDeps } from '../rest/context.js';
import { MemberMonitor } from './member-monitor.js';
import { reportMemberMetrics } from './member-metrics.js';
import { LATENCY_BUCKETS_SECONDS } from '../rest/request-stats.js';

export const GRID_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface MemberOptions {
  readonly config: GridConfig;
  /** Where logs go; stdout by default. */
  readonly logDestination?: DestinationStream;
  readonly clock?: Clock;
  /** Config warnings to log once the logger exists. */
  readonly configWarnings?: readonly string[];
  /** Called with the member as soon as it exists, before it starts (a start can wait long: a restart from persisted data). */
  readonly onCreated?: (member: Member) => void;
  /**
   * Start without this address's persisted data, in a new directory (`grid start --start-empty`):
   * the operator's choice when the data's directory is held by a live process. The data stays.
   */
  readonly startEmpty?: boolean;
}

/** How long a stopping CP member tries to give its CP seat up. */
const CP_LEAVE_TIMEOUT_MS = 3_000;
/** How long a graceful stop waits for answers in flight before closing their connections. */
const STOP_GRACE_MS = 5_000;
/** At most one warning per this interval that HTTP arrived while REST is off. */
const REST_HINT_INTERVAL_MS = 60_000;
/** How long start waits for the first partition table after joining. */
const PARTITION_TABLE_WAIT_MS = 30_000;

export class Member {
  readonly uuid: string;
  /** This member's persistence (undefined when `persistence` is not enabled). */
  readonly persistence: PersistenceService | undefined;
  /** The persistence wiring (undefined when `persistence` is not enabled). */
  private readonly persisting: MemberPersistence | undefined;
  readonly instanceName: string;
  readonly config: GridConfig;
  private readonly plan: ListenPlan;
  readonly logger: Logger;
  readonly logControl: LogControl;
  readonly cluster: ClusterService;
  readonly maps: MapService;
  readonly queues: QueueService;
  readonly partitions: PartitionService;
  readonly wan: WanService;
  /** The cluster-wide bus of map change events (client listeners, REST change streams). */
  readonly events: EventService;
  /** The cluster-wide bus of queue change events (REST change streams of queues). */
  readonly queueEvents: QueueEventService;
  readonly cp: CpService;
  readonly net: MemberNet;
  /** TLS of the member port, REST's port, member and WAN dials (net/tls). */
  readonly tls: TlsEndpoints;
  /** Prometheus metrics (undefined when `metrics enabled="false"`). */
  readonly metrics: GridMetrics | undefined;
  /** The console's figures: this member's own, and the cluster's gathered over the member protocol. */
  readonly monitor: MemberMonitor;
  private readonly clock: Clock;
  /** Refuses writes that grow memory past grid.memory.limit (docs/maps.md). */
  private readonly memoryGuard: MemoryGuard;
  private memberListener: Listener | undefined;
  private restListener: Listener | undefined;
  private rest: RestServer | undefined;
  /** Hazelcast's client protocol on the member port (docs/clients.md). */
  private clients: ClientServer | undefined;
  private stopping: Promise<void> | undefined;
  private lastRestHint = -Infinity;
  private resolveStopped!: () => void;
  /** Settles when the member has stopped, for whatever reason. */
  readonly stopped: Promise<void> = new Promise((resolve) => (this.resolveStopped = resolve));

  private constructor(opts: MemberOptions) {
    this.config = opts.config;
    this.plan = listenPlan(opts.config);
    this.clock = opts.clock ?? systemClock;
    this.memoryGuard = memoryGuardOf(opts.config.properties, this.clock);
    this.instanceName = opts.config.instanceName ?? generateInstanceName();
    this.logControl = createLogControl({
      level: parseLogLevel(opts.config.tuning.logLevel) ?? 'INFO',
      ...(opts.logDestination ? { destination: opts.logDestination } : {}),
      bindings: { member: this.instanceName },
    });
    this.logger = this.logControl.logger;
    for (const w of opts.configWarnings ?? []) this.logger.warn(`config: ${w}`);
    let opened: OpenedStore | undefined;
    // Persistence first: a restarting member takes its persisted identity (and its data, below).
    if (opts.config.persistence.enabled) {
      this.persistence = new PersistenceService(opts.config.persistence, this.logger);
      opened = this.persistence.open(`:${this.plan.memberPort.port}`, { startEmpty: opts.startEmpty === true });
      this.uuid = opened.state?.uuid ?? randomUUID();
    } else {
      this.uuid = randomUUID();
    }
    const t = opts.config.tuning;
    this.tls = new TlsEndpoints(tlsPlan(opts.config.network, opts.config.advancedNetwork), this.logger);
    this.net = new MemberNet({
      dialer: this.tls.dialer,
      logger: this.logger,
      clock: this.clock,
      auth: createMemberAuth(opts.config),
      local: () => ({ uuid: this.uuid, address: this.address }),
      connectTimeoutMs: opts.config.network.join.tcpIp.connectionTimeoutSeconds * 1000,
      version: GRID_VERSION,
      stall: memberStallBounds(t.heartbeatIntervalSeconds * 1000, t.maxNoHeartbeatSeconds * 1000),
    });
    // Placeholder identity until the port is bound; replaced in start().
    this.cluster = new ClusterService({
      clusterName: opts.config.clusterName,
      local: this.memberInfo('127.0.0.1', 0),
      tcpIpMembers: opts.config.network.join.tcpIp.members,
      joinAddresses: () => this.joinAddresses(),
      net: this.net,
      clock: this.clock,
      logger: this.logger,
      tuning: {
        heartbeatIntervalMs: t.heartbeatIntervalSeconds * 1000,
        maxNoHeartbeatMs: t.maxNoHeartbeatSeconds * 1000,
        connectionMonitorMaxFaults: t.connectionMonitorMaxFaults,
        connectionMonitorIntervalMs: t.connectionMonitorIntervalMillis,
        maxJoinMs: t.maxJoinSeconds * 1000,
        callTimeoutMs: Math.min(t.operationCallTimeoutMillis, 10_000),
        ignoreMessages: t.debugIgnoreMessages,
        mergeFirstRunDelayMs: t.mergeFirstRunDelaySeconds * 1000,
        mergeNextRunDelayMs: t.mergeNextRunDelaySeconds * 1000,
      },
    });
    this.partitions = new PartitionService({
      cluster: this.cluster,
      net: this.net,
      clock: this.clock,
      logger: this.logger,
      tuning: {
        replicaCount: replicaCountFor(opts.config),
        maxParallelMigrations: t.maxParallelMigrations,
        callTimeoutMs: Math.max(t.operationCallTimeoutMillis, 60_000),
        replicaSyncIntervalMs: t.replicaSyncIntervalSeconds * 1000,
      },
    });
    const invoker = new ClusterInvoker({
      cluster: this.cluster,
      partitions: this.partitions,
      net: this.net,
      clock: this.clock,
      logger: this.logger,
      tuning: {
        callTimeoutMs: t.operationCallTimeoutMillis,
        backupTimeoutMs: t.operationBackupTimeoutMillis,
        debugDropBackups: t.debugDropBackups,
      },
    });
    // Split-brain protection counts the data members this member sees (Hazelcast leaves lite members out).
    const clusterSize = (): number => {
      let n = 0;
      for (const m of this.cluster.members()) if (!m.liteMember) n++;
      return n;
    };
    const serviceDeps = { config: this.config, invoker, clock: this.clock, logger: this.logger, clusterSize, writeGate: this.memoryGuard };
    const guard = this.memoryGuard;
    this.maps = new MapService({
      ...serviceDeps,
      isOwner: (pid) => this.partitions.table.ownerOf(pid) === this.cluster.localMember().uuid,
      memory: { limitBytes: () => guard.limitBytes, usedBytes: () => process.memoryUsage.rss() },
    });
    const cluster = this.cluster;
    const partitions = this.partitions;
    this.queues = new QueueService({
      ...serviceDeps,
      membership: {
        localUuid: () => cluster.localMember().uuid,
        isMember: (uuid) => cluster.memberByUuid(uuid) !== undefined,
        isOwner: (pid) => partitions.table.ownerOf(pid) === cluster.localMember().uuid,
        onMembersRemoved: (fn) =>
          cluster.on((e) => {
            if (e.type === 'membersChanged' && e.removed.length > 0) fn(e.removed.map((m) => m.uuid));
          }),
      },
    });
    invoker.register('map', this.maps.handler);
    invoker.register('queue', this.queues.handler);
    if (this.persistence !== undefined && opened !== undefined) {
      this.persisting = new MemberPersistence({
        config: this.config,
        logger: this.logger,
        uuid: this.uuid,
        address: () => this.address,
        persistence: this.persistence,
        cluster,
        partitions,
        maps: this.maps,
        queues: this.queues,
        net: this.net,
        shutdownWhileRecovering: () => this.shutdownWhileRecovering,
      });
      this.persisting.wire(opened, invoker);
    }
    this.partitions.register(this.maps.replicaData);
    this.partitions.register(this.queues.replicaData);
    this.partitions.register(this.maps.events.replicaData);
    this.partitions.register(this.queues.events.replicaData);
    const journal = new EventJournal({
      net: this.net,
      cluster: { localUuid: () => cluster.localMember().uuid, memberAddress: (uuid) => cluster.memberByUuid(uuid)?.address },
      partitions: { replicas: (pid) => partitions.table.replicas(pid), tableVersion: () => partitions.table.version(), onTableApplied: (fn) => partitions.onTableApplied(fn) },
      configOf: (mapName) => this.maps.configOf(mapName),
      invoker,
      clock: this.clock,
      logger: this.logger.child({ component: 'journal' }),
    });
    invoker.register('journal', journal.handler);
    this.partitions.register(journal.replicaData);
    this.events = new EventService({
      journal,
      net: this.net,
      cluster,
      source: this.maps.events,
      tableVersion: () => partitions.table.version(),
      clock: this.clock,
      logger: this.logger.child({ component: 'events' }),
    });
    this.queueEvents = new QueueEventService({
      net: this.net,
      cluster,
      source: this.queues.events,
      tableVersion: () => partitions.table.version(),
      clock: this.clock,
      logger: this.logger.child({ component: 'queue-events' }),
    });
    const memberAuth = createMemberAuth(opts.config);
    this.wan = new WanService({
      config: this.config,
      net: this.net,
      maps: this.maps,
      clock: this.clock,
      logger: this.logger,
      version: GRID_VERSION,
      membership: cluster,
      partitions: {
        ownerOf: (pid) => partitions.table.ownerOf(pid),
        replicas: (pid) => partitions.table.replicas(pid),
      },
      identity: memberAuth.identity,
      // A WAN peer's identity is checked like a joining member's (the cluster name was checked already).
      verifyIdentity: (username, password) => memberAuth.verify(opts.config.clusterName, username, password),
    });
    this.maps.setWanSink(this.wan);
    this.partitions.register(this.wan.replicaData);
    this.cp = new CpService({ config: this.config, net: this.net, cluster, clock: this.clock, logger: this.logger });
    this.metrics = opts.config.metrics.enabled ? new GridMetrics() : undefined;
    if (this.metrics !== undefined) {
      reportMemberMetrics(this.metrics, {
        cluster,
        partitions,
        invoker,
        maps: this.maps,
        queues: this.queues,
        memoryGuard: guard,
        wan: this.wan,
        persistence: this.persistence,
        cp: this.config.cpSubsystem.enabled ? this.cp : undefined,
        connections: () => this.connectionCounts(),
        clientRouting: () => this.clients?.routing,
      });
    }
    this.monitor = new MemberMonitor({
      net: this.net,
      cluster,
      partitions: { partitionCount: PARTITION_COUNT, replicas: (pid) => partitions.table.replicas(pid), version: () => partitions.table.version() },
      connections: () => this.connectionKinds(),
      cpMemberUuid: () => (this.config.cpSubsystem.enabled ? this.cp.status().cpMemberUuid : undefined),
      memoryLimitBytes: guard.limitBytes,
      migrations: () => partitions.migrationStatus(),
      historySeconds: t.metricsHistorySeconds,
      clock: this.clock,
      logger: this.logger,
      sources: {
        rest: { buckets: LATENCY_BUCKETS_SECONDS, totals: (into) => this.rest?.requestStats?.totals(into) },
        clientRequests: () => this.clients?.routing.requests ?? 0,
        mapFootprint: () => this.maps.ownedFootprint(),
        wan: () => this.wan.status(),
        forEachMap: (fn) => this.maps.forEachCounters(fn),
        forEachQueue: (fn) => this.queues.forEachCounters(fn),
      },
    });
  }

  /** Set when a shutdown was asked for while this member's restart waited: it stops instead of starting. */
  private shutdownWhileRecovering = false;

  static async start(opts: MemberOptions): Promise<Member> {
    const m = new Member(opts);
    opts.onCreated?.(m);
    try {
      await m.startPhases();
    } catch (e) {
      await m.stop();
      throw e;
    }
    return m;
  }

  /** Address of the member port (`ip:port`). */
  get address(): string {
    return this.cluster.localMember().address;
  }

  get memberPort(): number {
    return this.memberListener?.port ?? 0;
  }

  /** The port REST is served on (the member port unless advanced network gives REST its own); 0 when REST is off. */
  get restPort(): number {
    if (!this.restEnabled()) return 0;
    return this.restListener?.port ?? this.memberPort;
  }

  restGroups(): ReadonlySet<EndpointGroupName> {
    return this.plan.restGroups;
  }

  private restEnabled(): boolean {
    return this.plan.restGroups.size > 0;
  }

  private async startPhases(): Promise<void> {
    // Data of an older partition hash version is rewritten for this one before anything binds.
    await this.persisting?.convertData();
    const cfg = this.config;
    const host = cfg.network.bindHost;
    const plan = this.plan;
    const separateRest = plan.restPort !== undefined;
    const groups = plan.restGroups;

    const credentials = createCredentialChecker(cfg);
    // Hazelcast clients are checked against the same users, and the client protocol is always on: warned without REST too.
    if (credentials.securityEnabled && credentials.userCount === 0) {
      this.logger.warn(
        'security is enabled but the client-authentication realm has no simple-authentication users (or no client-authentication realm is set): ' +
          `${groups.size > 0 ? 'every REST call that takes credentials will be refused (403), and ' : ''}every Hazelcast client will be refused (CREDENTIALS_FAILED)`,
      );
    }
    // The web console's files are read once, here, and only when its group is on.
    const consoleBundle = groups.has('CONSOLE') ? loadConsoleAssets() : undefined;
    if (consoleBundle !== undefined && !consoleBundle.ok) this.logger.warn(`console: ${consoleBundle.reason}; /grid/console/ answers 500 until the member runs a build that has it`);
    // REST server first (it does no I/O until connections are handed to it).
    const deps: RestDeps = {
      config: cfg,
      logger: this.logger,
      logControl: this.logControl,
      instanceName: this.instanceName,
      reloadTls: () => this.reloadTls('REST'),
      cluster: this.cluster,
      maps: this.maps,
      events: this.events,
      queueEvents: this.queueEvents,
      queues: this.queues,
      wan: this.wan,
      cp: this.cp,
      credentials,
      health: {
        clusterSafe: () => this.partitions.clusterSafe(),
        migrationQueueSize: () => this.partitions.migrationQueueSize(),
        recovering: () => this.partitions.isRecovering(),
        persistence: () => this.persisting?.health(),
        memory: () => this.memoryGuard.status(),
      },
      persistence: { enabled: this.persistence !== undefined, command: (name) => (this.persisting === undefined ? Promise.resolve(answerPersistenceCommand(undefined, name, 0)) : this.persisting.command(name)) },
      partitions: {
        partitionCount: PARTITION_COUNT,
        replicaCount: this.partitions.replicaCount,
        version: () => this.partitions.table.version(),
        replicas: (pid: number) => this.partitions.table.replicas(pid),
        replicaSync: () => this.partitions.replicaSync.counters(),
        migrations: () => this.partitions.migrationStatus(),
      },
      connections: () => this.connectionCounts(),
      monitor: this.monitor,
      sharedReads: { setReadSink, inSharedReadBuffer },
      enabledGroups: groups,
      ...(consoleBundle === undefined ? {} : { console: consoleBundle }),
      ...(this.metrics === undefined ? {} : { metrics: this.metrics }),
    };
    const rest = groups.size > 0 ? new RestServer(deps) : undefined;
    this.rest = rest;
    let restReady = false;
    const httpSink = rest && {
      ownReads: rest.ownReads,
      accept: (socket: net.Socket, head: Buffer) => {
        if (!restReady) {
          socket.destroy();
          return;
        }
        rest.accept(socket, head);
      },
    };
    const refuseHttp = (): void => this.hintRestDisabled();
    const clients = this.startClientServer(credentials);
    let clientsReady = false;
    const clientSink = {
      // Client connections read into the listener's shared buffer (no allocation per read).
      ownReads: true,
      accept: (socket: net.Socket, head: Buffer) => {
        // Before the data services run, a client is closed: it retries (its connect backoff).
        if (!clientsReady) socket.destroy();
        else clients.accept(socket, head);
      },
    };

    // WAN: handlers and the acceptor for other clusters' publishers before the port opens.
    this.wan.start();
    this.events.start();
    this.queueEvents.start();
    this.cp.start();
    handlePersistenceCommands(this.net, this.persisting);

    // 1. bind
    this.memberListener = new Listener({
      host,
      logger: this.logger,
      http: separateRest ? undefined : httpSink,
      member: this.net,
      client: clientSink,
      onRefusedHttp: separateRest ? () => this.logger.debug('HTTP on the member port refused: REST has its own port') : refuseHttp,
      tls: this.tls.member,
    });
    const port = await this.memberListener.listen(plan.memberPort);
    if (plan.restPort !== undefined) {
      this.restListener = new Listener({ host, logger: this.logger, http: httpSink, member: undefined, onRefusedHttp: refuseHttp, tls: this.tls.rest });
      await this.restListener.listen(plan.restPort);
    }
    this.tls.watchFiles();
    const advertised = this.advertisedHost();
    this.cluster.setLocal(this.memberInfo(advertised.host, advertised.port ?? port));

    // 2. join (or form) the cluster
    try {
      await this.cluster.join();
    } catch (e) {
      this.logger.error(`could not join the cluster: ${describeError(e)}`);
      throw e;
    }
    // 3. partitions: the master's table (a cluster of data members always has one)
    if (this.partitions.isRecovering()) {
      // REST answers while the cluster restarts: health says STARTING (/health/ready 503),
      // and partialStart / forceStart can end the wait.
      restReady = true;
      // So can a shutdown (clusterShutdown, memberShutdown): the member stops instead of starting, its persisted data kept.
      const off = this.cluster.on((e) => {
        if (e.type !== 'shutdownRequested' || this.shutdownWhileRecovering) return;
        this.shutdownWhileRecovering = true;
        this.logger.info('shutdown requested while the cluster restarts from persisted data: stopping, the persisted data is kept');
        this.partitions.abandonRecovery();
      });
      try {
        await this.persisting?.awaitRecovery();
      } finally {
        off();
      }
      if (this.shutdownWhileRecovering) {
        await this.stop();
        return;
      }
    } else if (this.cluster.members().some((m) => !m.liteMember)) {
      const got = await this.partitions.waitForTable(PARTITION_TABLE_WAIT_MS);
      if (!got) this.logger.warn('no partition table from the master yet: data requests answer 503 until it arrives');
    }
    // 4. data services
    this.maps.startExpirySweeper(cfg.tuning.expirySweepIntervalMillis);
    this.wan.joined();
    this.monitor.start();
    // 5. REST and Hazelcast clients
    restReady = true;
    clientsReady = true;
    this.cluster.on((e) => {
      if (e.type === 'shutdownRequested' || e.type === 'removedFromCluster') {
        this.stop().catch((err: unknown) => this.logger.error(`stopping failed: ${describeError(err)}`));
      }
      if (e.type === 'stateChanged') this.logger.info({ from: e.from, to: e.to }, 'cluster state changed');
      if (e.type === 'merge') this.onMerge(e.phase);
    });

    this.logger.info(
      {
        address: this.address,
        uuid: this.uuid,
        instanceName: this.instanceName,
        clusterName: cfg.clusterName,
        version: GRID_VERSION,
        memberPort: this.memberPort,
        restPort: this.restPort || null,
        endpointGroups: [...groups],
        liteMember: cfg.liteMember,
      },
      `member ${this.address} started (instance ${this.instanceName}, uuid ${this.uuid}); ` +
        (groups.size > 0 ? `REST on port ${this.restPort}, groups ${[...groups].join(', ')}` : 'REST disabled'),
    );
  }

  /** What this member owned when its cluster began to merge into another (split brain healed). */
  private mergeStash: { maps: MapMergeBatch[]; queues: QueueMergeBatch[] } | undefined;

  private onMerge(phase: 'collect' | 'joined' | 'failed'): void {
    if (phase === 'collect') {
      const owned = this.partitions.ownedPartitions();
      this.mergeStash = { maps: this.maps.collectForMerge(owned), queues: this.queues.collectForMerge(owned) };
      const entries = this.mergeStash.maps.reduce((n, b) => n + b.entries.length, 0);
      const items = this.mergeStash.queues.reduce((n, b) => n + b.items.length, 0);
      this.logger.warn(`merging: took ${entries} map entries and ${items} queue items of ${owned.length} owned partitions to merge into the other cluster`);
      this.partitions.resetForMerge();
      this.maps.dropAll();
      return;
    }
    const stash = this.mergeStash;
    this.mergeStash = undefined;
    if (stash === undefined) return;
    void (async () => {
      const started = this.clock.now();
      if (!(await this.partitions.waitForTable(PARTITION_TABLE_WAIT_MS))) this.logger.warn('merging: no partition table yet; merge operations wait for one');
      const maps = await this.maps.mergeInto(stash.maps);
      const queues = await this.queues.mergeInto(stash.queues);
      this.logger.warn(
        `merge done in ${this.clock.now() - started} ms: ${maps.merged} map entries taken by the merge policies, ${maps.kept} kept the other cluster's value; ` +
          `${queues.appended} queue items appended, ${queues.discarded} discarded by policy, ${queues.refused} refused (queue full)`,
      );
    })().catch((e: unknown) => this.logger.error(`merging data into the other cluster failed: ${describeError(e)}`));
  }

  /** Graceful stop; safe to call more than once. */
  stop(): Promise<void> {
    if (this.stopping === undefined && this.partitions.isRecovering()) {
      // A stop (a signal) while the restart waits for its cluster: the wait ends; data is kept.
      this.shutdownWhileRecovering = true;
      this.partitions.abandonRecovery();
    }
    this.stopping ??= this.stopPhases();
    return this.stopping;
  }

  /** Re-reads the TLS files (SIGHUP, `grid tls reload`): new connections take them; broken files leave the old ones in use. */
  reloadTls(reason: string): ReturnType<TlsEndpoints['reload']> {
    return this.tls.reload(reason);
  }

  /** True once a stop has begun (a shutdown asked while the member was still starting, say). */
  isStopping(): boolean {
    return this.stopping !== undefined;
  }

  private async stopPhases(): Promise<void> {
    this.logger.info('member shutting down');
    this.cluster.markShuttingDown();
    // REST first: no new connections, idle ones closed.
    const listeners = [this.restListener, this.memberListener].filter((l): l is Listener => l !== undefined);
    const closingRest = this.restListener?.close(false);
    this.rest?.close();
    // Clients too: they reconnect to the other members.
    this.clients?.stop();
    // A CP member gives its seat up while it can still reach the METADATA group.
    await this.cp.leave(CP_LEAVE_TIMEOUT_MS);
    // Then hand the partitions over while the member protocol still runs.
    try {
      await this.cluster.leave();
    } catch (e) {
      this.logger.warn(`leaving the cluster failed: ${describeError(e)}`);
    }
    this.monitor.stop();
    this.wan.stop();
    this.events.stop();
    this.queueEvents.stop();
    this.cp.stop();
    this.queues.stop();
    this.maps.stop();
    if (this.persistence !== undefined) {
      this.persisting?.saveState(true);
      await this.persistence.close().catch((e: unknown) => this.logger.error(`persistence: closing failed: ${describeError(e)}`));
    }
    this.partitions.stop();
    // Partitions are handed over: member connections are no longer needed (queued messages still go out).
    await this.net.stop();
    const closing = listeners.map((l) => l.close(false));
    const grace = new Promise<void>((resolve) => this.clock.setTimeout(resolve, STOP_GRACE_MS));
    await Promise.race([Promise.all([...closing, closingRest]), grace]);
    // Sockets last.
    this.rest?.closeAll();
    await Promise.all(listeners.map((l) => l.close(true)));
    this.tls.close();
    this.cluster.markShutDown();
    this.logger.info('member stopped');
    this.logger.flush?.();
    this.resolveStopped();
  }

  private connectionCounts(): { client: number; member: number } {
    const k = this.connectionKinds();
    return { client: k.rest + k.client, member: k.member };
  }

  /** Open connections by kind: HTTP, Hazelcast clients, member protocol. */
  private connectionKinds(): { rest: number; client: number; member: number } {
    let rest = 0;
    let client = 0;
    for (const l of [this.memberListener, this.restListener]) {
      if (!l) continue;
      rest += l.counts.http;
      client += l.counts.client;
    }
    return { rest, client, member: this.net.connectionCount() };
  }

  /** The client protocol's server over the same facades REST uses. */
  private startClientServer(credentials: CredentialChecker): ClientServer {
    const toView = (m: MemberInfo): ViewMember => ({ uuid: m.uuid, host: m.host, port: m.port, liteMember: m.liteMember, version: HAZELCAST_COMPAT_VERSION });
    const clusterName = this.config.clusterName;
    const clients = new ClientServer(
      {
        clusterName,
        partitionCount: PARTITION_COUNT,
        // Stable and the same on every member: derived from the cluster name (Grid has no cluster id of its own yet).
        clusterId: nameUuid(`grid-cluster:${clusterName}`),
        localUuid: () => this.uuid,
        localMember: () => toView(this.cluster.localMember()),
        members: () => this.cluster.members().map(toView),
        memberListVersion: () => this.cluster.memberListVersion(),
        partitionTableVersion: () => this.partitions.table.version(),
        partitionOwners: () => Array.from({ length: PARTITION_COUNT }, (_, pid) => this.partitions.table.ownerOf(pid)),
        ownerOf: (pid) => this.partitions.table.ownerOf(pid),
        maps: this.maps,
        queues: this.queues,
        credentials,
        cp: this.cp,
        events: this.events,
        setReadSink,
      },
      this.clock,
      this.logger.child({ component: 'client' }),
    );
    this.clients = clients;
    return clients;
  }

  private hintRestDisabled(): void {
    const now = this.clock.now();
    if (now - this.lastRestHint < REST_HINT_INTERVAL_MS) return;
    this.lastRestHint = now;
    this.logger.warn(
      'an HTTP request arrived but the REST API is disabled (or has no endpoint group enabled) on this port: ' +
        'set network.rest-api enabled="true" (or an advanced-network rest-server-socket-endpoint-config) and enable endpoint groups ' +
        '(e.g. <endpoint-group name="DATA" enabled="true"/>), or HZ_NETWORK_RESTAPI_ENABLED=true',
    );
  }

  /** `host:port` addresses of the tcp-ip member list, for joining. */
  private joinAddresses(): string[] {
    const tcp = this.config.network.join.tcpIp;
    if (!tcp.enabled) return [];
    const port = this.plan.memberPort.port;
    // Entries without a port try the next ports only when the member port auto-increments (as Hazelcast).
    const tries = this.plan.memberPort.autoIncrement ? this.config.tuning.tcpJoinPortTryCount : 1;
    // The list as it is now: POST config/tcp-ip/member-list may have changed it since start.
    return expandMemberList(this.cluster.tcpIpMemberList(), port, tries).map((a) => {
      const host = a.host === 'localhost' ? '127.0.0.1' : a.host;
      return host.includes(':') ? `[${host}]:${a.port}` : `${host}:${a.port}`;
    });
  }

  /** The host (and port) this member is known by. */
  private advertisedHost(): { host: string; port: number | undefined } {
    const pub = this.config.network.publicAddress;
    if (pub !== undefined) {
      const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(pub);
      if (m) return { host: m[1]!.replace(/^\[|\]$/g, ''), port: m[2] !== undefined ? Number(m[2]) : undefined };
    }
    const bind = this.config.network.bindHost;
    if (bind !== '0.0.0.0' && bind !== '::') return { host: bind, port: undefined };
    const members = this.config.network.join.tcpIp.members;
    if (members.some((e) => /^(127\.|localhost|\[::1\])/.test(e))) return { host: '127.0.0.1', port: undefined };
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return { host: a.address, port: undefined };
    }
    return { host: '127.0.0.1', port: undefined };
  }

  private memberInfo(host: string, port: number): MemberInfo {
    const h = host.includes(':') ? `[${host}]` : host;
    return { uuid: this.uuid, address: `${h}:${port}`, host, port, liteMember: this.config.liteMember, version: GRID_VERSION };
  }
}
