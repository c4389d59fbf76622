// The target side of WAN replication: the checks on a publisher's hello, applying the batches
// other clusters send (grouped per map and partition, in order), answering their Merkle
// queries, and resetting inbound connections that went silent (half-open after a cut link).

import type { TimerHandle } from '../core/clock.js';
import { GridError, describeError, type GridErrorCode } from '../core/errors.js';
import { PARTITION_HASH_VERSION, partitionHashMismatch } from '../core/murmur3.js';
import { MERGE_POLICY_NAMES, type MapConfig, type MergePolicyName } from '../config/types.js';
import type { MapWanIncoming } from '../map/map-service.js';
import type { StoreObserver } from '../map/record-store.js';
import type { MemberConnection } from '../net/member-net.js';
import type { WireValue } from '../protocol/codec.js';
import { decodeWanBatch, decodeWanMerkle, encodeWanMerkleAnswer, type WanAuthPayload } from '../protocol/wan-payloads.js';
import { PARTITION_COUNT } from '../partition/partitioning.js';
import { partitionIdOfKey } from '../map/map-keys.js';
import { MAX_COMPARE_LEVEL, MERKLE_ACROSS_VERSIONS, MerkleObserver } from './merkle-observer.js';
import { WanLiveness } from './wan-liveness.js';
import type { WanDeps } from './wan-deps.js';

/** An inbound WAN connection is reset after twice its source's heartbeat timeout of silence, this timeout clamped to these bounds. */
const INBOUND_MIN_TIMEOUT_MS = 1_000;
const INBOUND_MAX_TIMEOUT_MS = 10 * 60_000;
const INBOUND_SWEEP_MS = 1_000;

export class WanTarget {
  /** Inbound WAN connections whose source probes them, with their silence watch. */
  private readonly inbound = new Map<MemberConnection, { readonly liveness: WanLiveness; bytesRead: number; readonly timeoutMs: number }>();
  private inboundTimer: TimerHandle | undefined;

  constructor(
    private readonly deps: WanDeps,
    private readonly clusterName: string,
  ) {}

  stop(): void {
    this.inboundTimer?.cancel();
    this.inbound.clear();
  }

  /** The WAN acceptor's check of a publisher's hello; undefined when accepted. */
  verifyPeer(hello: WanAuthPayload): { code: GridErrorCode; reason: string } | undefined {
    if (hello.targetCluster !== this.clusterName) {
      return { code: 'FORBIDDEN', reason: `the publisher targets cluster "${hello.targetCluster}" but this is cluster "${this.clusterName}"` };
    }
    if (hello.sourceCluster === this.clusterName) {
      return { code: 'FORBIDDEN', reason: `the publisher's own cluster is named "${hello.sourceCluster}" too: a cluster does not replicate to itself` };
    }
    return this.deps.verifyIdentity(hello.username, hello.password);
  }

  /** Apply a batch from a source cluster: acknowledged on receipt or once applied, as the source asked. */
  onBatch(payload: WireValue): WireValue | Promise<WireValue> {
    const batch = decodeWanBatch(payload);
    // One operation per map and partition, events in their order: per-key order holds.
    const groups = new Map<string, { pid: number; mapName: string; entries: MapWanIncoming[] }>();
    for (const e of batch.events) {
      const pid = partitionIdOfKey(e.key);
      const id = `${pid}\u0000${e.mapName}`;
      let g = groups.get(id);
      if (g === undefined) groups.set(id, (g = { pid, mapName: e.mapName, entries: [] }));
      g.entries.push({
        kind: e.kind,
        key: e.key,
        value: e.value,
        contentType: e.contentType,
        ttlRemainingMs: e.ttlRemainingMs,
        stats: e.stats,
        mergePolicy: mergePolicyOf(e.mergePolicy),
        originClusters: e.originClusters,
      });
    }
    const work = Promise.all([...groups.values()].map((g) => this.deps.maps.applyWan(g.pid, g.mapName, g.entries)));
    if (batch.ackOnReceipt) {
      work.catch((e: unknown) => this.deps.logger.warn({ source: batch.sourceCluster }, `WAN batch from cluster "${batch.sourceCluster}" not fully applied: ${describeError(e)}`));
      return batch.events.length;
    }
    return work.then((counts) => counts.reduce((a, b) => a + b, 0));
  }

  /** A source's consistency check asks for one level of a partition's Merkle tree. */
  onMerkle(payload: WireValue, from?: MemberConnection): Promise<WireValue> | WireValue {
    const mismatch = partitionHashMismatch(from?.wanPartitionHash ?? PARTITION_HASH_VERSION, `the source cluster "${from?.wanCluster ?? '?'}"`);
    if (mismatch !== undefined) throw new GridError('CONFLICT', `${mismatch}. ${MERKLE_ACROSS_VERSIONS}`);
    const q = decodeWanMerkle(payload);
    if (q.partitionId < 0 || q.partitionId >= PARTITION_COUNT) throw new GridError('BAD_REQUEST', `no partition ${q.partitionId}`);
    const cfg = this.deps.maps.configOf(q.mapName);
    if (!cfg.merkleTree.enabled) throw new GridError('BAD_REQUEST', `map "${q.mapName}" has no merkle-tree enabled on cluster "${this.clusterName}"`);
    return this.deps.maps.queryObserver(q.partitionId, q.mapName, 'merkleLevel', q.level);
  }

  /** At the partition's owner: the hashes of one level of the map's Merkle tree (empty tree when the map has no entries here). */
  merkleLevel(obs: StoreObserver | undefined, cfg: MapConfig, arg: WireValue): WireValue {
    const leafLevel = obs instanceof MerkleObserver ? obs.tree.leafLevel : cfg.merkleTree.depth - 1;
    const asked = typeof arg === 'number' && Number.isInteger(arg) ? arg : leafLevel;
    const level = Math.max(0, Math.min(asked, leafLevel, MAX_COMPARE_LEVEL));
    // No store here: an empty tree's hashes are zeros (no tree is built for them).
    const hashes = obs instanceof MerkleObserver ? obs.tree.levelHashes(level) : new Int32Array(2 ** level);
    return encodeWanMerkleAnswer({ level, hashes });
  }

  /**
   * A source that probes its connection has told its heartbeat timeout; a
   * connection from it silent for twice that is half-open (the source gave it up and its reset
   * was lost on the cut link), so it is reset here too rather than held until the operating
   * system gives it up. Connections whose source never probes are left alone.
   */
  watchInbound(conn: MemberConnection, heartbeatTimeoutMs: number): void {
    if (this.inbound.has(conn) || conn.closed || !(heartbeatTimeoutMs > 0)) return;
    const t = Math.min(Math.max(heartbeatTimeoutMs, INBOUND_MIN_TIMEOUT_MS), INBOUND_MAX_TIMEOUT_MS);
    this.inbound.set(conn, { liveness: new WanLiveness({ intervalMs: t, timeoutMs: 2 * t }, this.deps.clock.now()), bytesRead: conn.socket.bytesRead, timeoutMs: 2 * t });
    conn.onClose(() => this.inbound.delete(conn));
    this.inboundTimer ??= this.deps.clock.setInterval(() => this.sweepInbound(), INBOUND_SWEEP_MS);
  }

  private sweepInbound(): void {
    const now = this.deps.clock.now();
    for (const [conn, w] of this.inbound) {
      if (conn.closed) {
        this.inbound.delete(conn);
        continue;
      }
      const read = conn.socket.bytesRead;
      if (read !== w.bytesRead) {
        w.bytesRead = read;
        w.liveness.heard(now);
      }
      const v = w.liveness.check(now); // its probe flag means nothing here: the target never probes
      if (v.type === 'dead') {
        this.inbound.delete(conn);
        this.deps.logger.info(
          { remote: conn.describe(), source: conn.wanCluster },
          `WAN connection from cluster "${conn.wanCluster ?? '?'}" (${conn.describe()}) closed: nothing received for ${v.silentForMs} ms (twice its heartbeat timeout)`,
        );
        conn.reset();
      }
    }
    if (this.inbound.size === 0 && this.inboundTimer !== undefined) {
      this.inboundTimer.cancel();
      this.inboundTimer = undefined;
    }
  }
}

/** Hazelcast's merge policy names, with or without the package prefix; unknown names merge as PassThrough. */
export function mergePolicyOf(name: string): MergePolicyName {
  const simple = name.startsWith('com.hazelcast.spi.merge.') ? name.slice('com.hazelcast.spi.merge.'.length) : name;
  return (MERGE_POLICY_NAMES as readonly string[]).includes(simple) ? (simple as MergePolicyName) : 'PassThroughMergePolicy';
}
