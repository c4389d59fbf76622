// Cluster information: GET rest/cluster (Hazelcast's member list), rest/partitions (Grid's
// partition table view), rest/instance (the instance name).

import type { RestDeps } from './context.js';
import { sendJson } from './respond.js';
import type { Request } from './route-kit.js';

export function clusterInfo(r: Request, d: RestDeps): void {
  const local = d.cluster.localMember();
  const conns = d.connections();
  sendJson(r.res, {
    members: d.cluster.members().map((m) => ({
      address: m.address,
      liteMember: m.liteMember,
      localMember: m.uuid === local.uuid,
      uuid: m.uuid,
      memberVersion: m.version,
    })),
    connectionCount: conns.client,
    allConnectionCount: conns.client + conns.member,
  });
}

/** How long a member that is not the master waits for the master's migration figures. */
export const MASTER_MIGRATIONS_TIMEOUT_MS = 1_000;

/**
 * Migrations in progress and replica safety, for the console to poll in one place: the
 * master's own figures (asked over the member protocol when this member is not the master),
 * else this member's (`from: "this-member"`: the queue size the master last sent, no running list).
 */
async function migrationsOf(d: RestDeps): Promise<Record<string, unknown> | undefined> {
  const local = d.partitions.migrations?.();
  if (local === undefined) return undefined;
  if (local.master) return { from: 'master', ...local };
  const fromMaster = await d.monitor?.masterMigrations(MASTER_MIGRATIONS_TIMEOUT_MS);
  if (fromMaster !== undefined) return { from: 'master', ...fromMaster };
  return { from: 'this-member', ...local };
}

/** Grid's own endpoint: the partition table as this member knows it, with migrations and safety. */
export async function partitionsInfo(r: Request, d: RestDeps): Promise<void> {
  const migrations = await migrationsOf(d);
  const p = d.partitions;
  const counts = new Map<string, { owned: number; backups: number }>();
  for (const m of d.cluster.members()) counts.set(m.uuid, { owned: 0, backups: 0 });
  const partitions: (readonly string[])[] = [];
  for (let pid = 0; pid < p.partitionCount; pid++) {
    const row = p.replicas(pid);
    partitions.push(row);
    row.forEach((uuid, i) => {
      let c = counts.get(uuid);
      if (c === undefined) counts.set(uuid, (c = { owned: 0, backups: 0 }));
      if (i === 0) c.owned++;
      else c.backups++;
    });
  }
  const addressOf = new Map(d.cluster.members().map((m) => [m.uuid, m.address]));
  sendJson(r.res, {
    version: p.version(),
    partitionCount: p.partitionCount,
    replicaCount: p.replicaCount,
    migrationQueueSize: d.health.migrationQueueSize(),
    clusterSafe: d.health.clusterSafe(),
    clusterState: d.cluster.state(),
    masterUuid: d.cluster.master()?.uuid ?? null,
    ...(migrations === undefined ? {} : { migrations }),
    members: [...counts].map(([uuid, c]) => ({ uuid, address: addressOf.get(uuid) ?? null, owned: c.owned, backups: c.backups })),
    partitions,
    ...(p.replicaSync === undefined ? {} : { replicaSync: p.replicaSync() }),
  });
}

export function instanceName(r: Request, d: RestDeps): void {
  sendJson(r.res, { name: d.instanceName });
}
