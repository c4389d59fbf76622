// JSON Schemas of answers that the OpenAPI document (openapi.ts) states, for rows of
// route-table.ts whose schema is too long to write inline. The contract test
// (test/http/openapi-contract.test.ts) checks live answers against them.

const UUID = { type: 'string', minLength: 1 };
const COUNT = { type: 'integer', minimum: 0 };
/** GET rest/cluster (rest-interface.md §2, cluster-routes.ts). */
export const CLUSTER_SCHEMA = {
  type: 'object',
  required: ['members', 'connectionCount', 'allConnectionCount'],
  properties: {
    members: {
      type: 'array',
      items: {
        type: 'object',
        required: ['address', 'liteMember', 'localMember', 'uuid', 'memberVersion'],
        properties: { address: { type: 'string' }, liteMember: { type: 'boolean' }, localMember: { type: 'boolean' }, uuid: UUID, memberVersion: { type: 'string' } },
      },
    },
    connectionCount: COUNT,
    allConnectionCount: COUNT,
  },
};
/** GET rest/partitions (Grid's own, cluster-routes.ts). */
export const PARTITIONS_SCHEMA = {
  type: 'object',
  required: ['version', 'partitionCount', 'replicaCount', 'migrationQueueSize', 'clusterSafe', 'members', 'partitions'],
  properties: {
    version: { type: 'integer' },
    partitionCount: COUNT,
    replicaCount: COUNT,
    migrationQueueSize: COUNT,
    clusterSafe: { type: 'boolean' },
    members: {
      type: 'array',
      items: { type: 'object', required: ['uuid', 'address', 'owned', 'backups'], properties: { uuid: UUID, address: { type: ['string', 'null'] }, owned: COUNT, backups: COUNT } },
    },
    partitions: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
  },
};

/** GET /grid/console/session (console-routes.ts). */
export const CONSOLE_SESSION_SCHEMA = {
  type: 'object',
  required: ['securityEnabled', 'clusterName', 'instanceName', 'memberUuid', 'memberAddress', 'memberVersion', 'groups'],
  properties: {
    securityEnabled: { type: 'boolean' },
    clusterName: { type: 'string' },
    instanceName: { type: 'string' },
    memberUuid: { type: 'string' },
    memberAddress: { type: 'string' },
    memberVersion: { type: 'string' },
    groups: { type: 'array', items: { type: 'string' } },
  },
} as const;
