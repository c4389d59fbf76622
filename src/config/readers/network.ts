// The network reader: `network` (port, public address, interfaces, join, rest-api and its
// endpoint groups) and `advanced-network` (member and REST endpoints, its own join), merged the
// way Hazelcast merges them; plus the host:port syntax WAN targets use too. A reader of a further
// network element (such as `ssl`) goes in its own file beside this one, called from
// `readNetwork` and the endpoint configs, and its name leaves IGNORED_NETWORK / IGNORED_ENDPOINT.

import { isIPv6 } from 'node:net';
import {
  DEFAULT_ADVANCED_NETWORK_ENABLED,
  DEFAULT_ADVANCED_REST_PORT,
  DEFAULT_AUTO_DETECTION_ENABLED,
  DEFAULT_BIND_HOST,
  DEFAULT_ENABLED_ENDPOINT_GROUPS,
  DEFAULT_MEMBER_PORT,
  DEFAULT_PORT_AUTO_INCREMENT,
  DEFAULT_PORT_COUNT,
  DEFAULT_REST_ENABLED,
  DEFAULT_TCP_IP_CONNECTION_TIMEOUT_SECONDS,
  DEFAULT_TCP_IP_ENABLED,
  ENDPOINT_GROUP_ALIASES,
} from '../defaults.js';
import { isHost, parseMemberEntry, splitMemberEntries } from '../member-list.js';
import { isRecord, show, type Problems } from '../problems.js';
import {
  ENDPOINT_GROUPS,
  type AdvancedNetworkConfig,
  type EndpointGroupName,
  type JoinConfig,
  type NetworkConfig,
  type PortConfig,
  type RestApiConfig,
} from '../types.js';
import { checkInt, readList, Section, type Raw } from './section.js';
import { IGNORED_ADVANCED, IGNORED_ENDPOINT, IGNORED_JOIN, IGNORED_NETWORK } from './unused-elements.js';
import { readSslOf, readWanEndpointSsl } from './ssl.js';

// ---- host and port syntax -------------------------------------------------------------

function isPort(s: string): boolean {
  return /^\d{1,5}$/.test(s) && Number(s) >= 1 && Number(s) <= 65535;
}

/**
 * `host` and `host:port`; host = IPv4, a name or [IPv6]; bare IPv6 without port. (Member-list
 * entries: member-list.ts.) Exported (through index.ts) for WAN target endpoints given over REST.
 */
export function isHostPort(entry: string): boolean {
  if (isIPv6(entry)) return true;
  const m = /^(\[[^\]]*\]|[^:]+)(?::(.*))?$/.exec(entry);
  if (m === null) return false;
  const host = m[1] ?? '';
  const port = m[2];
  if (!isHost(host)) return false;
  if (port === undefined) return true;
  return isPort(port);
}

// ---- sections ---------------------------------------------------------------------------

/** `network` and `advanced-network` of the root, merged. */
export function readNetworkSections(problems: Problems, root: Section): { network: NetworkConfig; advanced: AdvancedNetworkConfig } {
  let network = readNetwork(problems, root.child('network'));
  const { advanced, join } = readAdvancedNetwork(problems, root.child('advanced-network'), network);
  if (advanced.enabled) {
    // Hazelcast reads join from advanced-network when it is enabled, and REST from its endpoint.
    const restFromAdvanced: RestApiConfig =
      advanced.rest === undefined
        ? { enabled: false, enabledGroups: new Set() }
        : { enabled: true, enabledGroups: advanced.rest.enabledGroups };
    if (network.restApi.enabled) {
      problems.warn('hazelcast.network.rest-api', 'ignored while advanced-network is enabled; use rest-server-socket-endpoint-config');
    }
    network = { ...network, join: join ?? network.join, restApi: restFromAdvanced };
  }
  return { network, advanced };
}

function readPort(problems: Problems, path: string, v: Raw, defPort: number): PortConfig {
  const def: PortConfig = { port: defPort, autoIncrement: DEFAULT_PORT_AUTO_INCREMENT, portCount: DEFAULT_PORT_COUNT };
  if (v === undefined || v === null) return def;
  if (!isRecord(v)) {
    // `port: 5701` shorthand.
    return { ...def, port: checkInt(problems, path, v, 1, 65535) ?? defPort };
  }
  const s = new Section(problems, path, v);
  const port = {
    port: s.int('port', defPort, 1, 65535),
    autoIncrement: s.bool('auto-increment', DEFAULT_PORT_AUTO_INCREMENT),
    portCount: s.int('port-count', DEFAULT_PORT_COUNT, 1, 65535),
  };
  s.finish();
  return port;
}

function readEndpointGroups(problems: Problems, s: Section): Set<EndpointGroupName> {
  const groups = new Set<EndpointGroupName>(DEFAULT_ENABLED_ENDPOINT_GROUPS);
  const g = s.child('endpoint-groups');
  for (const name of Object.keys(g.obj)) {
    const upper = name.trim().toUpperCase();
    const canonical = ENDPOINT_GROUP_ALIASES[upper] ?? ENDPOINT_GROUPS.find((n) => n === upper);
    const entry = g.child(name);
    if (canonical === undefined) {
      problems.error(entry.path, `unknown endpoint group (known: ${[...ENDPOINT_GROUPS, ...Object.keys(ENDPOINT_GROUP_ALIASES)].join(', ')})`);
      continue;
    }
    const enabled = entry.bool('enabled', true);
    entry.finish();
    if (enabled) groups.add(canonical);
    else groups.delete(canonical);
  }
  g.finish();
  return groups;
}

function readRestApi(problems: Problems, s: Section): RestApiConfig {
  const enabled = s.bool('enabled', DEFAULT_REST_ENABLED);
  const groups = readEndpointGroups(problems, s);
  s.finish();
  // With REST off no group is reachable; an empty set says so to every reader.
  return { enabled, enabledGroups: enabled ? groups : new Set() };
}

function readJoin(problems: Problems, s: Section): JoinConfig {
  const tcp = s.child('tcp-ip');
  const members: string[] = [];
  const entries = [
    ...readList(problems, tcp.at('member-list'), tcp.raw('member-list')),
    ...readList(problems, tcp.at('members'), tcp.raw('members')),
    ...readList(problems, tcp.at('interface'), tcp.raw('interface')),
    ...readList(problems, tcp.at('required-member'), tcp.raw('required-member')),
  ];
  // One element may hold several entries (Hazelcast splits at commas, semicolons, spaces).
  for (const e of entries) {
    for (const value of splitMemberEntries(e.value)) {
      try {
        parseMemberEntry(value);
      } catch (err) {
        problems.error(e.path, err instanceof Error ? err.message : String(err));
        continue;
      }
      if (!members.includes(value)) members.push(value);
    }
  }
  const tcpIp = {
    enabled: tcp.bool('enabled', DEFAULT_TCP_IP_ENABLED),
    members,
    connectionTimeoutSeconds: tcp.int('connection-timeout-seconds', DEFAULT_TCP_IP_CONNECTION_TIMEOUT_SECONDS, 0),
  };
  tcp.finish();

  const multicast = s.child('multicast');
  if (multicast.bool('enabled', false)) {
    problems.warn(multicast.at('enabled'), 'Grid never joins by multicast; use tcp-ip (multicast stays disabled)');
  }
  // Every other multicast setting is moot: accepted silently.
  multicast.finish([], { silent: Object.keys(multicast.obj) });

  const auto = s.child('auto-detection');
  const autoDetectionEnabled = auto.bool('enabled', DEFAULT_AUTO_DETECTION_ENABLED);
  if (autoDetectionEnabled) problems.warn(auto.at('enabled'), 'Grid has no auto-detection; members are found by tcp-ip only');
  auto.finish();
  s.finish(IGNORED_JOIN);
  return { tcpIp, multicastEnabled: false, autoDetectionEnabled };
}

function readNetwork(problems: Problems, s: Section): NetworkConfig {
  const port = readPort(problems, s.at('port'), s.raw('port'), DEFAULT_MEMBER_PORT);
  const publicAddress = s.optStr('public-address');
  if (publicAddress !== undefined && !isHostPort(publicAddress)) {
    problems.error(s.at('public-address'), `not a host or host:port: ${show(publicAddress)}`);
  }
  const ifaces = s.child('interfaces');
  const ifacesEnabled = ifaces.bool('enabled', false);
  const list = readList(problems, ifaces.at('interfaces'), ifaces.raw('interfaces'));
  ifaces.finish();
  let bindHost = DEFAULT_BIND_HOST;
  const first = list[0];
  if (ifacesEnabled && first !== undefined) {
    if (/[*-]/.test(first.value) && !isIPv6(first.value)) {
      problems.warn(first.path, `Grid binds one literal address and does not expand patterns; binding ${DEFAULT_BIND_HOST}`);
    } else if (!isHost(first.value) && !isIPv6(first.value)) {
      problems.error(first.path, `not an address: ${show(first.value)}`);
    } else {
      bindHost = first.value.replace(/^\[(.*)\]$/, '$1');
    }
  }
  const join = readJoin(problems, s.child('join'));
  const restApi = readRestApi(problems, s.child('rest-api'));
  const ssl = readSslOf(problems, s);
  s.finish(IGNORED_NETWORK);
  return { port, publicAddress: publicAddress === '' ? undefined : publicAddress, bindHost, join, restApi, ssl };
}

function readAdvancedNetwork(
  problems: Problems,
  s: Section,
  network: NetworkConfig,
): { advanced: AdvancedNetworkConfig; join: JoinConfig | undefined } {
  const enabled = s.bool('enabled', DEFAULT_ADVANCED_NETWORK_ENABLED);
  const join = s.has('join') ? readJoin(problems, s.child('join')) : undefined;
  const member = s.child('member-server-socket-endpoint-config');
  const memberPort = readPort(problems, member.at('port'), member.raw('port'), DEFAULT_MEMBER_PORT);
  const memberSsl = readSslOf(problems, member);
  // `name` only labels an endpoint config.
  member.finish(IGNORED_ENDPOINT, { silent: ['name'] });
  let rest: AdvancedNetworkConfig['rest'];
  let restSsl: AdvancedNetworkConfig['restSsl'];
  if (s.has('rest-server-socket-endpoint-config')) {
    const r = s.child('rest-server-socket-endpoint-config');
    const port = readPort(problems, r.at('port'), r.raw('port'), DEFAULT_ADVANCED_REST_PORT);
    const enabledGroups = readEndpointGroups(problems, r);
    restSsl = readSslOf(problems, r);
    r.finish(IGNORED_ENDPOINT, { silent: ['name'] });
    rest = { port, enabledGroups };
  }
  const wanSsl = readWanEndpointSsl(problems, s.child('wan-endpoint-config'));
  s.finish(IGNORED_ADVANCED);
  if (!enabled) return { advanced: { enabled: false, memberPort: network.port, rest: undefined }, join: undefined };
  return { advanced: { enabled: true, memberPort, rest, memberSsl, restSsl, wanSsl }, join };
}
