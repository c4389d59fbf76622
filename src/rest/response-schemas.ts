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
