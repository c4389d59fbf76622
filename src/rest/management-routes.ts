// The CLUSTER_READ / CLUSTER_WRITE administration endpoints' handlers: rest/management/cluster/*
// (state, nodes, version, changeState, shutdowns), rest/log-level, the tcp-ip member list and
// the license (rows of route-table.ts).

import { GridError, describeError } from '../core/errors.js';
import { parseMemberEntry } from '../config/index.js';
import { parseLogLevel } from '../core/logger.js';
import { SETTABLE_CLUSTER_STATES, type ClusterState } from '../cluster/types.js';
import type { RestDeps } from './context.js';
import { sendJson } from './respond.js';
import { requireBasicWhenSecured, type Handler, type Request } from './route-kit.js';

export function clusterVersion(r: Request, d: RestDeps): void {
  sendJson(r.res, { status: 'success', version: d.cluster.version() });
}

export function clusterStateRead(r: Request, d: RestDeps): void {
  sendJson(r.res, { status: 'success', state: d.cluster.state().toLowerCase() });
}

export function clusterNodes(r: Request, d: RestDeps): void {
  // Hazelcast's answer: its member collection's toString() (`[Member [host]:port - uuid
  // this lite, …]`, join order), the member version, the runtime version.
  const local = d.cluster.localMember().uuid;
  const list = d.cluster
    .members()
    .map((m) => `Member [${m.host}]:${m.port} - ${m.uuid}${m.uuid === local ? ' this' : ''}${m.liteMember ? ' lite' : ''}`)
    .join(', ');
  const response = `[${list}]\n${d.cluster.localMember().version}\nNode.js ${process.version}`;
  sendJson(r.res, { status: 'success', response });
}

export async function changeClusterState(r: Request, d: RestDeps, _path: readonly string[], [stateName]: readonly string[]): Promise<void> {
  const to = (stateName ?? '').trim().toUpperCase() as ClusterState;
  if (!SETTABLE_CLUSTER_STATES.includes(to)) {
    throw new GridError('BAD_REQUEST', `unknown cluster state "${stateName ?? ''}" (one of ${SETTABLE_CLUSTER_STATES.join(', ')})`);
  }
  const changed = await d.cluster.changeState(to);
  sendJson(r.res, { status: changed ? 'success' : 'fail', state: to.toLowerCase() });
}

export function setClusterVersion(r: Request, d: RestDeps, _path: readonly string[], [wanted]: readonly string[]): void {
  const v = (wanted ?? '').trim();
  if (!/^\d+\.\d+(\.\d+)?$/.test(v)) throw new GridError('BAD_REQUEST', `not a version: "${v}" (expected major.minor)`);
  const majorMinor = v.split('.').slice(0, 2).join('.');
  if (majorMinor === d.cluster.version()) {
    sendJson(r.res, { status: 'success', version: d.cluster.version() });
  } else {
    sendJson(r.res, {
      status: 'fail',
      message: `cluster version cannot change to ${majorMinor}: every member runs ${d.cluster.version()}`,
      version: d.cluster.version(),
    });
  }
}

/** POST clusterShutdown or memberShutdown: answer first, then shut down once the answer is on its way (or the client has gone). */
export function shutdown(scope: 'cluster' | 'member'): Handler {
  return (r, d) => {
    if (scope === 'cluster' && !d.cluster.joined()) {
      throw new GridError('CONFLICT', 'this member has not joined a cluster yet');
    }
    let requested = false;
    const request = (): void => {
      if (requested) return;
      requested = true;
      d.cluster.requestShutdown(scope);
    };
    r.res.once('finish', request);
    r.res.once('close', request);
    sendJson(r.res, { status: 'success' });
  };
}

export function getLogLevel(r: Request, d: RestDeps): void {
  requireBasicWhenSecured(r, d);
  sendJson(r.res, { logLevel: d.logControl.override() });
}

export function setLogLevel(r: Request, d: RestDeps, _path: readonly string[], [name]: readonly string[]): void {
  const level = parseLogLevel(name ?? '');
  if (level === undefined) {
    throw new GridError('BAD_REQUEST', `unknown log level "${name ?? ''}" (one of OFF, SEVERE, WARNING, INFO, CONFIG, FINE, FINER, FINEST, ALL)`);
  }
  d.logControl.set(level);
  d.logger.info({ newLevel: level }, 'log level changed through REST');
  sendJson(r.res, { status: 'success', message: 'log level is changed' });
}

export function resetLogLevel(r: Request, d: RestDeps): void {
  d.logControl.reset();
  d.logger.info('log level reset through REST');
  sendJson(r.res, { status: 'success', message: 'log level is reset' });
}

export function setTcpIpMembers(r: Request, d: RestDeps, _path: readonly string[], [list]: readonly string[]): void {
  const members = (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  // The same parser as the configuration's member-list, so both accept the same entries.
  for (const m of members) {
    try {
      parseMemberEntry(m);
    } catch (e) {
      throw new GridError('BAD_REQUEST', `not a member address: ${describeError(e)}`);
    }
  }
  d.cluster.setTcpIpMemberList(members);
  sendJson(r.res, { status: 'success', 'member-list': members });
}

export function tcpIpMembers(r: Request, d: RestDeps): void {
  sendJson(r.res, { status: 'success', 'member-list': d.cluster.tcpIpMemberList() });
}

export function getLicense(): never {
  throw new GridError('BAD_REQUEST', 'GET license is not supported: Grid needs no license');
}

export function setLicense(r: Request): void {
  sendJson(r.res, { status: 'success' });
}
