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

/** Grid's own endpoint: the partition table as this member knows it. */
export function partitionsInfo(r: Request, d: RestDeps): void {
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
    members: [...counts].map(([uuid, c]) => ({ uuid, address: addressOf.get(uuid) ?? null, owned: c.owned, backups: c.backups })),
    partitions,
    ...(p.replicaSync === undefined ? {} : { replicaSync: p.replicaSync() }),
  });
}

export function instanceName(r: Request, d: RestDeps): void {
  sendJson(r.res, { name: d.instanceName });
}
