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
  required: ['version', 'partitionCount', 'replicaCount', 'migrationQueueSize', 'clusterSafe', 'clusterState', 'masterUuid', 'members', 'partitions'],
  properties: {
    version: { type: 'integer' },
    partitionCount: COUNT,
    replicaCount: COUNT,
    migrationQueueSize: COUNT,
    clusterSafe: { type: 'boolean' },
    clusterState: { type: 'string' },
    masterUuid: { type: ['string', 'null'] },
    migrations: {
      type: 'object',
      required: ['from', 'master', 'queued', 'inFlight', 'running', 'completed', 'blockedPartitions', 'partitionsWithoutOwner', 'partitionsMissingReplicas'],
      properties: {
        from: { enum: ['master', 'this-member'] },
        master: { type: 'boolean' },
        queued: COUNT,
        inFlight: COUNT,
        running: { type: 'array', items: COUNT },
        completed: COUNT,
        blockedPartitions: COUNT,
        partitionsWithoutOwner: COUNT,
        partitionsMissingReplicas: COUNT,
      },
    },
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

const BYTES = { type: 'integer', minimum: 0 };
/** GET /grid/rest/members (Grid's own, monitor-routes.ts; MemberStatus of rest/context.ts). */
export const MEMBERS_SCHEMA = {
  type: 'object',
  required: ['clusterState', 'memberListVersion', 'timeoutMs', 'members'],
  properties: {
    clusterState: { type: 'string' },
    memberListVersion: { type: 'integer' },
    timeoutMs: COUNT,
    members: {
      type: 'array',
      items: {
        type: 'object',
        required: ['uuid', 'address', 'version', 'liteMember', 'master', 'local', 'reachable'],
        properties: {
          uuid: UUID,
          address: { type: 'string' },
          version: { type: 'string' },
          liteMember: { type: 'boolean' },
          master: { type: 'boolean' },
          local: { type: 'boolean' },
          reachable: { type: 'boolean' },
          error: { type: 'string', description: 'Why the member is not reachable (only when reachable is false).' },
          figures: {
            type: 'object',
            description: "The member's own figures (only when reachable is true).",
            required: [
              'state', 'cpMember', 'cpMemberUuid', 'startTime', 'uptimeMs', 'heapUsedBytes', 'heapTotalBytes', 'rssBytes', 'memoryLimitBytes',
              'partitionsOwned', 'backupsHeld', 'partitionTableVersion', 'clientConnections', 'restConnections', 'memberConnections', 'loadAverage',
            ],
            properties: {
              state: { type: 'string' },
              cpMember: { type: 'boolean' },
              cpMemberUuid: { type: ['string', 'null'] },
              startTime: { type: 'integer', description: 'Epoch ms the member started.' },
              uptimeMs: COUNT,
              heapUsedBytes: BYTES,
              heapTotalBytes: BYTES,
              rssBytes: BYTES,
              memoryLimitBytes: BYTES,
              partitionsOwned: COUNT,
              backupsHeld: COUNT,
              partitionTableVersion: { type: 'integer' },
              clientConnections: COUNT,
              restConnections: COUNT,
              memberConnections: COUNT,
              loadAverage: { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3 },
            },
          },
        },
      },
    },
  },
};
const SERIES = { type: 'array', items: { type: ['number', 'null'] } };
/** GET /grid/rest/metrics/history (Grid's own, monitor-routes.ts; HistoryReport of rest/context.ts). */
export const HISTORY_SCHEMA = {
  type: 'object',
  required: ['seconds', 'timeoutMs', 'members'],
  properties: {
    seconds: COUNT,
    timeoutMs: COUNT,
    members: {
      type: 'array',
      items: {
        type: 'object',
        required: ['uuid', 'address', 'version', 'liteMember', 'master', 'local', 'reachable'],
        properties: {
          uuid: UUID,
          address: { type: 'string' },
          version: { type: 'string' },
          liteMember: { type: 'boolean' },
          master: { type: 'boolean' },
          local: { type: 'boolean' },
          reachable: { type: 'boolean' },
          error: { type: 'string' },
          history: {
            type: 'object',
            required: ['intervalMs', 'times', 'series', 'wan'],
            properties: {
              intervalMs: COUNT,
              times: { type: 'array', items: { type: 'integer' } },
              series: { type: 'object', additionalProperties: SERIES },
              wan: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['wanReplicationName', 'publisherId', 'queueDepth', 'lagMs'],
                  properties: { wanReplicationName: { type: 'string' }, publisherId: { type: 'string' }, queueDepth: SERIES, lagMs: SERIES },
                },
              },
            },
          },
        },
      },
    },
  },
};
/** One entry's result of a map batch (maps-routes.ts, map-batch.ts). */
const BATCH_RESULT = {
  type: 'object',
  required: ['status'],
  properties: {
    key: { type: 'string' },
    status: { type: 'integer', minimum: 200, maximum: 599 },
    value: { type: 'string' },
    encoding: { enum: ['text', 'base64'] },
    contentType: { type: 'string' },
    version: { type: 'integer' },
    error: { type: 'string' },
  },
};
/** POST /grid/rest/maps/<map>, the JSON form: results in three arrays mirroring the request's. */
export const BATCH_ANSWER_SCHEMA = {
  type: 'object',
  required: ['get', 'put', 'delete'],
  properties: { get: { type: 'array', items: BATCH_RESULT }, put: { type: 'array', items: BATCH_RESULT }, delete: { type: 'array', items: BATCH_RESULT } },
};
/** POST /grid/rest/maps/<map>, the JSON form's request. */
export const BATCH_REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    get: { type: 'array', items: { type: 'string' } },
    put: {
      type: 'array',
      items: {
        type: 'object',
        required: ['key', 'value'],
        additionalProperties: false,
        properties: { key: { type: 'string' }, value: { type: 'string' }, encoding: { enum: ['text', 'base64'] }, contentType: { type: 'string' }, ttl: { type: 'integer', minimum: 0 } },
      },
    },
    delete: { type: 'array', items: { type: 'string' } },
    encoding: { enum: ['auto', 'base64'] },
  },
};
/** The binary batch form (batch-binary.ts; its layout: docs/data-api.md), request and answer. */
export const BINARY_BATCH_SCHEMA = { type: 'string', contentMediaType: 'application/vnd.grid.batch', description: 'Length-prefixed records: "GRB1", u32 count, then per record (docs/data-api.md#the-binary-form).' };
