// The path prefixes REST dispatches on (after `/grid/` or `/hazelcast/`), named once: the
// dispatch, the endpoint groups of a path and the route labels of metrics all slice by them.

/** Every path of Hazelcast's REST API but health and metrics starts here. */
export const REST = 'rest/';
export const MAPS = 'rest/maps/';
export const QUEUES = 'rest/queues/';
export const HEALTH = 'health';
export const HEALTH_SUB = 'health/';
export const MANAGEMENT = 'rest/management/cluster/';
export const CP_SUBSYSTEM = 'rest/cp-subsystem';
export const CP_DATA = 'rest/cp';
export const WAN = 'rest/wan/';
