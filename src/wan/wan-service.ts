// WAN replication of one member: the facade other layers call (the member wires it in, the map
// service writes through it as its MapWanSink, REST calls it as the WanFacade). Each concern is
// its own module, sharing one WanContext: wan-publishers.ts (per target: connections, batches,
// liveness), wan-sink.ts (map mutations in), wan-queue-replicas.ts (the queues as partition
// data), wan-target.ts (applying other clusters' batches), wan-member-controls.ts (this member's
// REST calls), wan-sync-jobs.ts (sync and Merkle checks, cluster-wide), wan-added-configs.ts.

import { GridError } from '../core/errors.js';
import type { MapConfig } from '../config/types.js';
import type { MapWanEvent, MapWanSink } from '../map/map-service.js';
import type { StoreObserver } from '../map/record-store.js';
import type { WireValue } from '../protocol/codec.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import { decodeWanPing, decodeWanSyncStart, encodeWanAddAnswer, encodeWanJobPart } from '../protocol/wan-payloads.js';
import type { ReplicaData } from '../partition/partition-service.js';
import type { WanAddResult, WanConsistencyResult, WanFacade, WanPublisherStatus, WanSyncProgress } from './wan-facade.js';
import type { WanContext } from './wan-context.js';
import type { WanDeps } from './wan-deps.js';
import { WanAddedConfigs } from './wan-added-configs.js';
import { WanMemberControls } from './wan-member-controls.js';
import { WanPublishers } from './wan-publishers.js';
import { wanQueueReplicaData } from './wan-queue-replicas.js';
import { WanSink } from './wan-sink.js';
import { WanSyncJobs } from './wan-sync-jobs.js';
import { WanTarget } from './wan-target.js';

export type { WanDeps } from './wan-deps.js';
export { MAX_COMPARE_LEVEL } from './merkle-observer.js';
export { mergePolicyOf } from './wan-target.js';

export class WanService implements WanFacade, MapWanSink {
  private readonly ctx: WanContext;
  private readonly sink: WanSink;
  private readonly target: WanTarget;
  private readonly controls: WanMemberControls;
  private readonly jobs: WanSyncJobs;
  private readonly added: WanAddedConfigs;
  /** The event queues as partition data: the member registers this with the partition service. */
  readonly replicaData: ReplicaData;

  constructor(deps: WanDeps) {
    const clusterName = deps.config.clusterName;
    this.ctx = { deps, clusterName, publishers: new WanPublishers(deps, clusterName) };
    this.sink = new WanSink(this.ctx);
    this.target = new WanTarget(deps, clusterName);
    this.controls = new WanMemberControls(this.ctx);
    this.jobs = new WanSyncJobs(this.ctx);
    this.added = new WanAddedConfigs(this.ctx);
    this.replicaData = wanQueueReplicaData(this.ctx);
    for (const rep of deps.config.wanReplication) this.ctx.publishers.add(rep);
  }

  /** Wire into the member: message handlers, the WAN acceptor, membership events. */
  start(): void {
    const net = this.ctx.deps.net;
    const target = this.target;
    net.setWanAcceptor({
      clusterName: this.ctx.clusterName,
      verify: (hello) => target.verifyPeer(hello),
    });
    net.handleWan(Msg.WanBatch, (p) => target.onBatch(p));
    net.handleWan(Msg.WanMerkle, (p, from) => target.onMerkle(p, from));
    // A liveness probe: answered at once, on the connection it came in on, whatever is being applied.
    net.handleWan(Msg.WanPing, (p, from) => {
      target.watchInbound(from, decodeWanPing(p).heartbeatTimeoutMs);
      return null;
    });
    net.handle(Msg.WanSyncStart, (p) => {
      this.jobs.startJobPart(decodeWanSyncStart(p));
      return null;
    });
    net.handle(Msg.WanSyncStatus, (p) => encodeWanJobPart(this.jobs.partView(f.str(f.tuple(p, 'wan sync status'), 0, 'uuid'))));
    net.handle(Msg.WanAddConfig, (p) => encodeWanAddAnswer(this.added.apply(f.str(f.tuple(p, 'wan add config'), 0, 'json'))));
    net.handle(Msg.WanConfigs, (p) => {
      if (f.tuple(p, 'wan configs').length !== 0) throw new GridError('BAD_REQUEST', 'malformed member message: wan configs takes no fields');
      return this.added.list();
    });
    net.handleOneWay(Msg.WanBackupAck, (p) => this.sink.onBackupAck(p));
    this.ctx.deps.maps.registerObserverQuery('merkleLevel', (obs, cfg, arg) => target.merkleLevel(obs, cfg, arg));
    this.ctx.publishers.start();
  }

  /** This member has joined its cluster: take the WAN configs the cluster added at run time. */
  joined(): void {
    this.added.fetchFromMaster();
  }

  stop(): void {
    this.jobs.stop();
    this.target.stop();
    this.ctx.publishers.stop();
  }

  // ------------------------------------------------------------------ MapWanSink (map mutations in)

  admit(mapName: string, partitionId: number): unknown {
    return this.sink.admit(mapName, partitionId);
  }

  commit(tickets: unknown, partitionId: number, event: MapWanEvent): WireValue {
    return this.sink.commit(tickets, partitionId, event);
  }

  cancel(tickets: unknown): void {
    this.sink.cancel(tickets);
  }

  offer(partitionId: number, event: MapWanEvent): WireValue {
    return this.sink.offer(partitionId, event);
  }

  backup(partitionId: number, event: MapWanEvent, seqs: WireValue): void {
    this.sink.backup(partitionId, event, seqs);
  }

  newObserver(config: MapConfig): StoreObserver | undefined {
    return this.sink.newObserver(config);
  }

  // ------------------------------------------------------------------ WanFacade (REST)

  pausePublisher(wanRepName: string, publisherId: string): void {
    this.controls.pausePublisher(wanRepName, publisherId);
  }

  resumePublisher(wanRepName: string, publisherId: string): void {
    this.controls.resumePublisher(wanRepName, publisherId);
  }

  stopPublisher(wanRepName: string, publisherId: string): void {
    this.controls.stopPublisher(wanRepName, publisherId);
  }

  clearQueues(wanRepName: string, publisherId: string): void {
    this.controls.clearQueues(wanRepName, publisherId);
  }

  status(): WanPublisherStatus[] {
    return this.controls.status();
  }

  startSync(wanRepName: string, publisherId: string, mapName: string | undefined): Promise<string> {
    return this.jobs.startSync(wanRepName, publisherId, mapName);
  }

  startConsistencyCheck(wanRepName: string, publisherId: string, mapName: string): Promise<string> {
    return this.jobs.startConsistencyCheck(wanRepName, publisherId, mapName);
  }

  syncProgress(uuid: string): Promise<WanSyncProgress> {
    return this.jobs.syncProgress(uuid);
  }

  consistencyResult(uuid: string): Promise<WanConsistencyResult> {
    return this.jobs.consistencyResult(uuid);
  }

  addConfigJson(json: string): Promise<WanAddResult> {
    return this.added.addConfigJson(json);
  }
}
