// The REST surface: which endpoint a request is for (its group, whether it reads a body, its
// handler in the resource's *-routes.ts file), resolved by prefix dispatch on the path; and
// ENDPOINTS, the declarative list of every endpoint that docs/rest-api.md's summary is
// rendered from and that test/unit/rest/route-table.test.ts checks the dispatch against.
// An unknown path or method is a 400 (the contract's "syntax not known").

import type { EndpointGroupName } from '../config/types.js';
import { GridError } from '../core/errors.js';
import { sendJson } from './respond.js';
import { isGet, onlyGet, paramRoute, unknown, type Method, type Route } from './route-kit.js';
import { mapRoute } from './maps-routes.js';
import { queueRoute } from './queues-routes.js';
import { healthRoute } from './health-routes.js';
import { clusterInfo, partitionsInfo } from './cluster-routes.js';
import { getLogLevel, managementRoute, resetLogLevel, setLogLevel, setTcpIpMembers } from './management-routes.js';
import { reloadTls } from './tls-routes.js';
import { cpDataRoute, cpRoute, cpUnknownWhenOff } from './cp-routes.js';
import { wanRoute } from './wan-routes.js';
import { metrics } from './metrics-routes.js';
import { CP_DATA, CP_SUBSYSTEM, HEALTH, HEALTH_SUB, MANAGEMENT, MAPS, QUEUES, WAN } from './route-paths.js';

export { authenticatedParams, type Method, type Request, type Route } from './route-kit.js';
export { ENDPOINTS, endpointIndex, type Endpoint } from './route-table.js';

/**
 * The endpoint group a path belongs to, from its first segments alone: used so that a
 * malformed path inside a disabled group is refused for the group (403), not parsed (400).
 */
export function groupOfPath(rest: string): EndpointGroupName | undefined {
  if (rest.startsWith(MAPS) || rest.startsWith(QUEUES)) return 'DATA';
  if (rest === HEALTH || rest.startsWith(HEALTH_SUB)) return 'HEALTH_CHECK';
  // `rest/wan/` alone is GET rest/wan (CLUSTER_READ) with a trailing slash.
  if (rest.startsWith(WAN) && rest.length > WAN.length) return 'WAN';
  if (rest === CP_SUBSYSTEM || rest.startsWith(`${CP_SUBSYSTEM}/`)) return 'CP';
  if (rest === CP_DATA || rest.startsWith(`${CP_DATA}/`)) return 'CP';
  return undefined;
}

/** `rest` is the encoded path after the prefix, without query string. */
export function resolveRoute(method: Method, rest: string): Route {
  if (rest.startsWith(MAPS)) return mapRoute(method, rest.slice(MAPS.length));
  if (rest.startsWith(QUEUES)) return queueRoute(method, rest.slice(QUEUES.length));
  const path = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === HEALTH || path.startsWith(HEALTH_SUB)) return healthRoute(method, path);
  if (path.startsWith(MANAGEMENT)) return managementRoute(method, path.slice(MANAGEMENT.length));
  if (path === CP_SUBSYSTEM || path.startsWith(`${CP_SUBSYSTEM}/`)) return cpRoute(method, path.slice(CP_SUBSYSTEM.length));
  if (path === CP_DATA || path.startsWith(`${CP_DATA}/`)) return cpUnknownWhenOff(method, () => cpDataRoute(method, path.slice(CP_DATA.length)));
  if (path.startsWith(WAN)) return wanRoute(method, path.slice(WAN.length));
  switch (path) {
    case 'rest/cluster':
      return onlyGet(method, path, 'CLUSTER_READ', clusterInfo);
    case 'rest/partitions':
      return onlyGet(method, path, 'CLUSTER_READ', partitionsInfo);
    case 'rest/wan':
      // Grid's own: the WAN publishers of this member (a read of member state, not a WAN operation).
      return onlyGet(method, path, 'CLUSTER_READ', (r, d) => sendJson(r.res, { publishers: d.wan.status() }));
    case 'rest/instance':
      return onlyGet(method, path, 'CLUSTER_READ', (r, d) => sendJson(r.res, { name: d.instanceName }));
    case 'metrics':
      // Prometheus text format; also served as bare /metrics (paths.ts). No rest/ segment, like health.
      return onlyGet(method, path, 'CLUSTER_READ', metrics);
    case 'rest/log-level':
      if (isGet(method)) return { group: 'CLUSTER_READ', readsBody: false, run: getLogLevel };
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 3, 3, setLogLevel);
      break;
    case 'rest/log-level/reset':
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 2, 2, resetLogLevel);
      break;
    case 'rest/tls/reload':
      // Grid's own: what SIGHUP does, from anywhere (certificate rotation; tls-routes.ts).
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 2, 2, reloadTls);
      break;
    case 'rest/license':
      if (isGet(method)) {
        return {
          group: 'CLUSTER_READ',
          readsBody: false,
          run: () => {
            throw new GridError('BAD_REQUEST', 'GET license is not supported: Grid needs no license');
          },
        };
      }
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 3, 2, (r) => sendJson(r.res, { status: 'success' }));
      break;
    case 'rest/config/tcp-ip/member-list':
      if (isGet(method)) {
        return {
          group: 'CLUSTER_READ',
          readsBody: false,
          run: (r, d) => sendJson(r.res, { status: 'success', 'member-list': d.cluster.tcpIpMemberList() }),
        };
      }
      if (method === 'POST') return paramRoute('CLUSTER_WRITE', 3, 3, setTcpIpMembers);
      break;
  }
  throw unknown(method, rest);
}
