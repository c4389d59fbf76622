// The path prefixes of the REST surface (after `/grid/` or `/hazelcast/`), named once: the
// scopes of the route table (route-table.ts) are these, and the dispatch, the endpoint groups of a
// path and the route labels of metrics all come from those scopes.

/** Every path of Hazelcast's REST API but health and metrics starts here. */
export const REST = 'rest/';
export const MAPS = 'rest/maps/';
export const QUEUES = 'rest/queues/';
/** Grid's own lists of maps and queues (only under `/grid/`). */
export const MAP_LIST = 'rest/maps';
export const QUEUE_LIST = 'rest/queues';
export const HEALTH = 'health';
export const METRICS = 'metrics';
/** Grid's own: the OpenAPI document of this surface (served under /grid/ only). */
export const OPENAPI = 'openapi.json';
export const CLUSTER = 'rest/cluster';
/** Grid's own: every member's figures (only under `/grid/`). */
export const MEMBERS = 'rest/members';
/** Grid's own: every member's metrics history (only under `/grid/`). */
export const METRICS_HISTORY = 'rest/metrics/history';
export const PARTITIONS = 'rest/partitions';
export const INSTANCE = 'rest/instance';
export const MANAGEMENT = 'rest/management/cluster/';
export const LOG_LEVEL = 'rest/log-level';
export const LOG_LEVEL_SUB = 'rest/log-level/';
export const LICENSE = 'rest/license';
export const CONFIG = 'rest/config/';
/** Grid's own: certificate rotation (POST rest/tls/reload). */
export const TLS = 'rest/tls/';
export const CP_SUBSYSTEM = 'rest/cp-subsystem';
export const CP_DATA = 'rest/cp';
/** Grid's own GET rest/wan; every WAN endpoint is under WAN. */
export const WAN_STATUS = 'rest/wan';
export const WAN = 'rest/wan/';
/** Grid's own: the web console (console-routes.ts), under /grid/ and /hazelcast/. */
export const CONSOLE = 'console';
