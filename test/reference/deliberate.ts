// The deliberate differences between Grid and Hazelcast's member REST API: each rule names
// one way Grid answers differently on purpose, with its reason (the contract, grid-behavior.md,
// or a Hazelcast fault Grid does not copy), and recognises exactly that case: what Hazelcast
// answered, what Grid answered and the request. A difference no rule claims is a Grid bug.
// docs/compatibility.md lists the same rules.

import type { DiffCase, Observed } from './rest-diff.js';

export interface Deliberate {
  readonly id: string;
  readonly reason: string;
  readonly applies: (c: DiffCase, hz: Observed, grid: Observed) => boolean;
}

type Answer = Extract<Observed, { kind: 'answer' }>;
const answered = (o: Observed): o is Answer => o.kind === 'answer';
const gridError = (o: Observed, status?: number): boolean =>
  answered(o) && o.status >= 400 && (status === undefined || o.status === status) && o.body.length === 0 && (o.headers['x-grid-error'] ?? '') !== '';
const hzFailJson = (o: Observed): boolean => answered(o) && o.contentType === 'application/json' && /^\{"status":"fail"/.test(o.body.toString('utf8'));
/** The path without the query, split raw into segments after /hazelcast/rest/ (or /hazelcast/). */
const segments = (c: DiffCase): string[] => c.path.split('?')[0]!.replace(/^\/hazelcast\/(rest\/)?/, '').split('/');
const bodyOf = (c: DiffCase): number => (c.body === undefined ? 0 : Buffer.byteLength(c.body));
const isData = (c: DiffCase): boolean => /^\/hazelcast\/rest\/(maps|queues)\//.test(c.path);
const hasBadEscape = (s: string): boolean => {
  try {
    decodeURIComponent(s.split('?')[0]!);
    return false;
  } catch {
    return true;
  }
};

export const DELIBERATE: readonly Deliberate[] = [
  {
    id: 'error-body',
    reason:
      'Every Grid error has an empty body (contract §7) and says why in X-Grid-Error (grid-behavior §3); Hazelcast 5.x writes {"status":"fail","message":…} bodies. The status is the same.',
    applies: (_c, hz, grid) => answered(hz) && answered(grid) && hz.status === grid.status && (hzFailJson(hz) || hz.body.length === 0) && gridError(grid),
  },
  {
    id: 'unknown-request-400',
    reason:
      'Grid answers every request it cannot serve (unknown path or method, odd path, malformed escape) with 400 and an X-Grid-Error (grid-behavior §3); Hazelcast closes the connection without an answer, so a client cannot tell a refusal from a crash.',
    applies: (_c, hz, grid) => (hz.kind === 'closed' || (answered(hz) && hz.status === 0)) && gridError(grid, 400),
  },
  {
    id: 'wrong-method-400',
    reason: 'A known path with a method it does not serve is 400 in Grid (grid-behavior §3: unknown method); Hazelcast answers 404.',
    applies: (_c, hz, grid) => answered(hz) && hz.status === 404 && hz.body.length === 0 && gridError(grid, 400),
  },
  {
    id: 'head-like-get',
    reason:
      'HEAD answers like GET without a body (grid-behavior §1; RFC 9110 9.3.2): status and headers of the GET. Hazelcast answers HEAD outside /health with a bare 200 whatever the resource, and HEAD on a /health sub-path with 404.',
    applies: (c, hz) =>
      c.method === 'HEAD' && answered(hz) && hz.body.length === 0 && ((hz.status === 200 && !c.path.startsWith('/hazelcast/health')) || (hz.status === 404 && c.path.split('?')[0] !== '/hazelcast/health')),
  },
  {
    id: 'poll-timeout',
    reason:
      'A poll timeout must be a non-negative integer: anything else is 400 (grid-behavior §3). Hazelcast answers 500 (NumberFormatException), polls with no timeout for an empty one, and blocks forever on a negative one (take()), holding the connection.',
    applies: (c, hz, grid) =>
      /^\/hazelcast\/rest\/queues\//.test(c.path) &&
      gridError(grid, 400) &&
      ((answered(hz) && (hz.status === 500 || hz.status === 200 || hz.status === 204)) || hz.kind === 'silent') &&
      segments(c).length >= 3 &&
      !/^\d+$/.test(segments(c).slice(2).join('/')) &&
      !(segments(c)[2] === 'size' && (c.method === 'GET' || c.method === 'HEAD')),
  },
  {
    id: 'raw-split',
    reason:
      'Grid splits the raw path on "/" and then percent-decodes each segment, so %2F is a "/" inside a name or key (grid-behavior §4); Hazelcast decodes first, so a %2F in a queue name moves the rest into the timeout (500) and one in a map name moves it into the key.',
    applies: (c, hz) => isData(c) && /%2f/i.test(c.path) && (!answered(hz) || hz.status !== 0),
  },
  {
    id: 'empty-name-or-key',
    reason:
      'An empty map name, queue name or key is 400 in Grid (grid-behavior §4: an empty key is not a key; DELETE /maps/<m>/ removes nothing); Hazelcast uses "" as a name or key, or clears the map.',
    applies: (c, hz, grid) => {
      if (!isData(c) || !gridError(grid, 400)) return false;
      const s = segments(c);
      const raw = c.path.split('?')[0]!;
      return s[1] === '' || raw.endsWith('/') || s.slice(2).join('/') === '' || /\/\/$/.test(raw) || (answered(hz) && hz.status === 400);
    },
  },
  {
    id: 'plus-is-plus',
    reason: 'Path segments are decoded with decodeURIComponent semantics: "+" stays "+" (grid-behavior §4); Hazelcast uses form decoding (URLDecoder), where "+" is a space.',
    applies: (c) => isData(c) && c.path.split('?')[0]!.includes('+'),
  },
  {
    id: 'query-not-key',
    reason: 'A query string is not part of the name or key (grid-behavior §4); Hazelcast keeps "?x=1" in the key.',
    applies: (c) => isData(c) && c.path.includes('?'),
  },
  {
    id: 'invalid-utf8-escape',
    reason: 'A percent-escape that does not decode as UTF-8 is 400 (grid-behavior §3); Hazelcast decodes it to U+FFFD and serves another key.',
    applies: (c, _hz, grid) => hasBadEscape(c.path) && gridError(grid, 400),
  },
  {
    id: 'body-on-get',
    reason:
      'Grid reads (and ignores) the body of a GET, HEAD or DELETE and answers it; Hazelcast does not read such a body, parses it as the next request and closes the connection without answering.',
    applies: (c, hz, grid) => ['GET', 'HEAD', 'DELETE'].includes(c.method) && bodyOf(c) > 0 && hz.kind === 'closed' && answered(grid),
  },
  {
    id: 'cp-not-enabled',
    reason:
      'With CP off every /cp-subsystem endpoint is 500 "CP subsystem is not enabled" (grid-behavior §8); Hazelcast 5.5+ open source has no CP subsystem at all (500 "licensed feature", or 404 for members/local).',
    applies: (c, _hz, grid) => c.path.startsWith('/hazelcast/rest/cp-subsystem/') && gridError(grid, 500),
  },
  {
    id: 'cp-default-group-eager',
    reason:
      'Grid creates the CP group "default" with the subsystem (docs/cp-subsystem.md), so it is listed, readable and has a (possibly empty) session list from the start; Hazelcast creates it when a CP structure first uses it, and until then lists METADATA only and answers 404 for it.',
    applies: (c, hz, grid) => {
      const path = c.path.split('?')[0]!;
      if (!answered(hz) || !answered(grid) || grid.status !== 200) return false;
      if (/^\/hazelcast\/rest\/cp-subsystem\/groups\/default(\/sessions)?$/.test(path)) return hz.status === 404;
      if (path !== '/hazelcast/rest/cp-subsystem/groups' || hz.status !== 200) return false;
      const withDefault = JSON.stringify([...(JSON.parse(hz.body.toString('utf8')) as unknown[]), { name: 'default', id: 1 }]);
      return grid.body.toString('utf8') === withDefault;
    },
  },
  {
    id: 'cp-metadata-sessions',
    reason:
      'GET groups/METADATA/sessions is an empty list in Grid (METADATA never holds sessions, so a tool listing every group\'s sessions needs no exception; `grid admin` prints "has no sessions"); Hazelcast answers 500 "Cannot query CP sessions on the METADATA CP group!".',
    applies: (c, hz, grid) =>
      /^\/hazelcast\/rest\/cp-subsystem\/groups\/METADATA\/sessions$/.test(c.path) && answered(hz) && hz.status === 500 && /Cannot query CP sessions on the METADATA/.test(hz.body.toString('utf8')) && answered(grid) && grid.status === 200 && grid.body.toString() === '[]',
  },
  {
    id: 'cp-trailing-slash',
    reason: 'One trailing "/" after a CP group or path is removed, as after a map key (grid-behavior §4); Hazelcast reads it as part of the name and answers 404.',
    applies: (c, hz, grid) => /^\/hazelcast\/rest\/cp-subsystem\/.+\/$/.test(c.path) && answered(hz) && hz.status === 404 && answered(grid) && grid.status === 200,
  },
  {
    id: 'cp-reset-anywhere',
    reason:
      'POST cp-subsystem/reset is accepted on any member and with fewer members than cp-member-count: every member wipes its CP state and the master forms the subsystem again once the cluster has cp-member-count data members (docs/cp-subsystem.md, "Majority lost"). Hazelcast refuses (500, empty body) unless asked on the master of a cluster with cp-member-count members.',
    applies: (c, hz, grid) => c.path === '/hazelcast/rest/cp-subsystem/reset' && answered(hz) && hz.status === 500 && hz.body.length === 0 && answered(grid) && grid.status === 200,
  },
  {
    id: 'cp-remove-present',
    reason:
      'POST cp-subsystem/members/<uuid>/remove of a CP member that is still in the cluster is refused: 400 "… is still a member of the cluster: only a missing CP member can be removed" (docs/cp-subsystem.md). Hazelcast removes it (200), which its own script warns against: a member partitioned away, not crashed, keeps acting as a CP member.',
    applies: (c, hz, grid) =>
      /^\/hazelcast\/rest\/cp-subsystem\/members\/[0-9a-f-]{36}\/remove$/.test(c.path) && answered(hz) && hz.status === 200 && gridError(grid, 400) && /still a member of the cluster/.test(answered(grid) ? grid.headers['x-grid-error'] ?? '' : ''),
  },
  {
    id: 'absolute-form',
    reason: 'A request target in absolute form (http://host/path) is served (RFC 9112 3.2.2: a server must accept it); Hazelcast closes the connection.',
    applies: (c, hz) => /^[a-z]+:\/\//i.test(c.path) && hz.kind === 'closed',
  },
  {
    id: 'continue-framing',
    reason: 'Hazelcast answers Expect: 100-continue with "HTTP/1.1 100 Continue" and no blank line after it (not a valid interim response); Grid sends a proper 100 Continue.',
    applies: (c, hz, grid) =>
      (c.headers ?? []).some(([n, v]) => n.toLowerCase() === 'expect' && v === '100-continue') && answered(hz) && hz.status === 0 && answered(grid) && grid.status === 200,
  },
  {
    id: 'hot-backup-fail',
    reason: 'hotBackup on a member without persistence answers {"status":"fail",…} in Grid (no backup was made); Hazelcast\'s open source answers "success" and does nothing.',
    applies: (c, hz, grid) => c.path.endsWith('/management/cluster/hotBackup') && answered(hz) && answered(grid) && grid.status === 200 && /"fail"/.test(grid.body.toString()),
  },
  {
    id: 'bad-parameter-400',
    reason:
      'A parameter that does not parse (an unknown cluster state or log level, a poll timeout that is not a number, a CP member uuid that is not one) is the client\'s mistake: 400 (grid-behavior §3, §8); Hazelcast answers 500 with the Java exception\'s text.',
    applies: (_c, hz, grid) =>
      answered(hz) && hz.status === 500 && /No enum constant|Invalid level|For input string|Cannot parse|Invalid UUID string/.test(hz.body.toString('utf8')) && gridError(grid, 400),
  },
  {
    id: 'passive-503',
    reason: 'A data operation while the cluster is PASSIVE is 503, which a client may retry (grid-behavior §3); Hazelcast answers 500 with the operation\'s internals in the message.',
    applies: (c, hz, grid) => isData(c) && answered(hz) && hz.status === 500 && /PASSIVE state/.test(hz.body.toString('utf8')) && gridError(grid, 503),
  },
  {
    id: 'poll-trailing-slash',
    reason: 'One trailing "/" after a poll timeout is removed, as after a map key (grid-behavior §4); Hazelcast fails to parse "0/" as a number (500).',
    applies: (c, hz, grid) => /^\/hazelcast\/rest\/queues\/[^/]+\/\d+\/$/.test(c.path) && answered(hz) && hz.status === 500 && answered(grid) && (grid.status === 200 || grid.status === 204),
  },
  {
    id: 'fail-with-message',
    reason:
      'A {"status":"fail"} answer says why in a "message" field (e.g. forceStart: "persistence is not enabled on this member"); Hazelcast\'s has the status only. Every field Hazelcast sends is there with its value.',
    applies: (_c, hz, grid) => {
      if (!answered(hz) || !answered(grid) || hz.status !== grid.status) return false;
      try {
        const h = JSON.parse(hz.body.toString('utf8')) as Record<string, unknown>;
        const g = JSON.parse(grid.body.toString('utf8')) as Record<string, unknown>;
        return h.status === 'fail' && typeof g.message === 'string' && Object.entries(h).every(([k, v]) => JSON.stringify(g[k]) === JSON.stringify(v));
      } catch {
        return false;
      }
    },
  },
  {
    id: 'version-refusal',
    reason:
      'POST management/cluster/version with a version the members do not run is refused as an answer, 200 {"status":"fail","message":…,"version":<current>} (grid-behavior §8: only the current version is accepted); Hazelcast answers 500, an error reserved for faults of the server in the contract (§7).',
    applies: (c, hz, grid) =>
      c.path === '/hazelcast/rest/management/cluster/version' && c.method === 'POST' && answered(hz) && hz.status === 500 && answered(grid) && grid.status === 200 && /"status":"fail"/.test(grid.body.toString()),
  },
  {
    id: 'exact-paths',
    reason:
      'An endpoint answers its own path only: /rest/cluster/x is 400 (grid-behavior §3: unknown path); Hazelcast matches GET paths by prefix and answers /rest/cluster/x as /rest/cluster.',
    applies: (c, hz, grid) => answered(hz) && hz.status === 200 && gridError(grid, 400) && /^\/hazelcast\/rest\/(cluster|instance)\/./.test(c.path),
  },
  {
    id: 'content-type-verbatim',
    reason:
      'The Content-Type of a value is stored and returned verbatim (grid-behavior §4); Hazelcast stores a text/plain value as a string and returns it as "text/plain" whatever the case it was sent in.',
    applies: (_c, hz, grid) =>
      answered(hz) &&
      answered(grid) &&
      hz.status === grid.status &&
      hz.body.equals(grid.body) &&
      hz.contentType !== grid.contentType &&
      (hz.contentType ?? '').toLowerCase() === (grid.contentType ?? '').toLowerCase(),
  },
  {
    id: 'group-disabled-403',
    reason:
      'A request to an endpoint whose group is disabled gets 403 with X-Grid-Error "endpoint group … is disabled" (grid-behavior §2); Hazelcast 5.x closes the connection without an answer (and logs it), which a client cannot tell from a crash.',
    applies: (_c, hz, grid) => hz.kind === 'closed' && gridError(grid, 403) && answered(grid) && /endpoint group \S+ is disabled/i.test(grid.headers['x-grid-error'] ?? ''),
  },
  {
    id: 'wan-implemented',
    reason: 'WAN replication is a real feature of Grid (grid-behavior §9); Hazelcast\'s open source answers "Wan Sync requires Hazelcast Enterprise Edition" (500) or does nothing.',
    applies: (c) => c.path.startsWith('/hazelcast/rest/wan/'),
  },
];

/** The rule that allows this difference, or undefined (a Grid bug). */
export function deliberate(c: DiffCase, hz: Observed, grid: Observed): Deliberate | undefined {
  return DELIBERATE.find((d) => d.applies(c, hz, grid));
}
