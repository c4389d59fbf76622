// The admin CLI's pure parts: settings from flags and environment, the messages and exit codes
// of failures, and the text it prints for the members' answers.

import { describe, expect, it } from 'vitest';
import { paramsBody, parseAddress, resolveSettings, describeCredentials } from '../../../src/cli/admin/settings.js';
import { CliError, EXIT, connectionError, httpError } from '../../../src/cli/admin/outcome.js';
import { resolveTls, tlsFailure, tlsRequestOptions } from '../../../src/cli/admin/tls-settings.js';
import {
  formatConsistency,
  formatCpGroups,
  formatCpMembers,
  formatCpSessions,
  formatCpStatus,
  formatLock,
  formatLockInfo,
  formatStatus,
  replicasText,
  formatWanStatus,
  progressBar,
  syncProgressLine,
  table,
  type WanPublisherAnswer,
} from '../../../src/cli/admin/format.js';

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(EXIT.USAGE);
    return (e as CliError).message;
  }
  throw new Error('expected a usage error');
}

describe('addresses', () => {
  it('host:port, bare host (5701), [v6]:port, bare v6, http:// and a trailing / accepted', () => {
    expect(parseAddress('10.0.0.1:5702')).toEqual({ host: '10.0.0.1', port: 5702, display: '10.0.0.1:5702' });
    expect(parseAddress('grid-0.grid')).toEqual({ host: 'grid-0.grid', port: 5701, display: 'grid-0.grid:5701' });
    expect(parseAddress('[::1]:5703')).toEqual({ host: '::1', port: 5703, display: '[::1]:5703' });
    expect(parseAddress('[::1]')).toEqual({ host: '::1', port: 5701, display: '[::1]:5701' });
    expect(parseAddress('fe80::1')).toEqual({ host: 'fe80::1', port: 5701, display: '[fe80::1]:5701' });
    expect(parseAddress(' http://localhost:5701/ ')).toEqual({ host: 'localhost', port: 5701, display: 'localhost:5701' });
  });

  it('bad ports and empty hosts are usage errors naming the input', () => {
    for (const bad of ['h:0', 'h:65536', 'h:abc', 'h:', ':5701', '', 'a b:1', 'user@h:1']) {
      expect(usage(() => parseAddress(bad)), bad).toMatch(bad === '' ? /empty/ : /address|port/);
    }
  });

  it('an https:// address asks for TLS', () => {
    expect(parseAddress('https://h:1/')).toEqual({ host: 'h', port: 1, display: 'h:1', https: true });
    expect(resolveSettings({ address: 'https://h:1' }, {}).tls).toEqual({ caFile: undefined, certFile: undefined, keyFile: undefined, insecure: false });
  });
});

describe('TLS flags', () => {
  it('are off unless asked; any TLS flag turns TLS on; the environment fills the files', () => {
    expect(resolveSettings({}, {}).tls).toBeUndefined();
    expect(resolveTls({ tls: true }, {}, false)).toEqual({ caFile: undefined, certFile: undefined, keyFile: undefined, insecure: false });
    expect(resolveTls({ cacert: 'ca.pem' }, {}, false)).toMatchObject({ caFile: 'ca.pem' });
    expect(resolveTls({ insecure: true }, {}, false)).toMatchObject({ insecure: true });
    expect(resolveTls({ tls: true }, { GRID_CACERT: 'e.pem', GRID_CERT: 'c.pem', GRID_KEY: 'k.pem' }, false)).toMatchObject({ caFile: 'e.pem', certFile: 'c.pem', keyFile: 'k.pem' });
    expect(resolveTls({ tls: true, cacert: 'f.pem' }, { GRID_CACERT: 'e.pem' }, false)).toMatchObject({ caFile: 'f.pem' });
  });

  it('--cert needs --key, and a file that cannot be read is a usage error naming it', () => {
    expect(usage(() => resolveTls({ cert: 'c.pem' }, {}, false))).toMatch(/--cert and --key go together/);
    expect(usage(() => tlsRequestOptions({ caFile: '/nope/ca.pem', certFile: undefined, keyFile: undefined, insecure: false }))).toBe('--cacert /nope/ca.pem: cannot read it (no such file)');
  });

  it('say what a TLS failure means', () => {
    expect(tlsFailure('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain', true)).toMatch(/pass --cacert/);
    expect(tlsFailure('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number', true)).toMatch(/does not speak TLS/);
    expect(tlsFailure('EPROTO', 'alert certificate required', true)).toMatch(/--cert and --key/);
    expect(tlsFailure('ECONNREFUSED', 'connect ECONNREFUSED', false)).toBeUndefined();
  });
});

describe('settings', () => {
  it('defaults: 127.0.0.1:5701, cluster name dev, no password, prefix grid, 70 s', () => {
    const s = resolveSettings({}, {});
    expect(s).toMatchObject({ addressSource: 'default', name: 'dev', nameSource: 'default', password: '', passwordSource: 'none', json: false, prefix: 'grid', requestTimeoutMs: 70_000 });
    expect(s.address.display).toBe('127.0.0.1:5701');
  });

  it('flags beat the environment; GRID_USER beats GRID_CLUSTER_NAME', () => {
    const env = { GRID_ADDRESS: 'envhost:5800', GRID_CLUSTER_NAME: 'envcluster', GRID_USER: 'envuser', GRID_PASSWORD: 'envpw' };
    expect(resolveSettings({}, env)).toMatchObject({ addressSource: 'GRID_ADDRESS', name: 'envuser', nameSource: 'GRID_USER', password: 'envpw', passwordSource: 'GRID_PASSWORD' });
    expect(resolveSettings({}, { GRID_CLUSTER_NAME: 'envcluster' })).toMatchObject({ name: 'envcluster', nameSource: 'GRID_CLUSTER_NAME' });
    const s = resolveSettings({ address: 'flaghost:1', clusterName: 'c', password: 'p', json: true, prefix: 'hazelcast', requestTimeout: '1.5' }, env);
    expect(s).toMatchObject({ addressSource: '--address', name: 'c', nameSource: '--cluster-name', password: 'p', passwordSource: '--password', json: true, prefix: 'hazelcast', requestTimeoutMs: 1500 });
    expect(s.address.display).toBe('flaghost:1');
    expect(resolveSettings({ user: 'admin' }, env)).toMatchObject({ name: 'admin', nameSource: '--user' });
    // An empty GRID_ADDRESS is no address.
    expect(resolveSettings({}, { GRID_ADDRESS: '' }).addressSource).toBe('default');
  });

  it('--cluster-name with --user, a bad prefix or timeout are usage errors', () => {
    expect(usage(() => resolveSettings({ clusterName: 'a', user: 'b' }, {}))).toMatch(/not both/);
    expect(usage(() => resolveSettings({ prefix: 'hz' }, {}))).toMatch(/--prefix/);
    for (const t of ['0', '-1', 'x', '']) expect(usage(() => resolveSettings({ requestTimeout: t }, {})), t).toMatch(/--request-timeout/);
  });

  it('parameter bodies percent-encode every position (& and % inside a name stay inside it)', () => {
    expect(paramsBody({ name: 'dev', password: '' })).toBe('dev&');
    expect(paramsBody({ name: 'a&b', password: 'p%w d' }, 'to-b', '', 'orders+1')).toBe('a%26b&p%25w%20d&to-b&&orders%2B1');
  });

  it('credentials are described by source, never with the password', () => {
    const s = resolveSettings({ user: 'admin', password: 's3cret' }, {});
    const d = describeCredentials(s);
    expect(d).toBe('user "admin" (from --user) and a password from --password');
    expect(d).not.toContain('s3cret');
    expect(describeCredentials(resolveSettings({}, {}))).toBe('cluster name "dev" (the default) and no password');
  });
});

describe('failures', () => {
  it('connection failures are exit 2 and name the address and where it came from', () => {
    const refused = connectionError('127.0.0.1:5799', '--address', { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED', connected: false });
    expect(refused.exitCode).toBe(EXIT.CONNECTION);
    expect(refused.message).toBe('cannot connect to 127.0.0.1:5799 (from --address): connection refused (is a member running there?)');
    expect(connectionError('127.0.0.1:5701', 'default', { code: 'ECONNREFUSED', message: '', connected: false }).message).toMatch(/the default address; pass --address/);
    expect(connectionError('h:1', 'GRID_ADDRESS', { code: 'ENOTFOUND', message: '', connected: false }).message).toMatch(/unknown host/);
    expect(connectionError('h:1', 'GRID_ADDRESS', { code: 'ETIMEDOUT', message: '', connected: false, timedOutMs: 5000 }).message).toMatch(/no connection within 5000 ms/);
    expect(connectionError('h:1', 'GRID_ADDRESS', { code: 'ETIMEDOUT', message: '', connected: true, timedOutMs: 700 }).message).toMatch(/no answer from h:1 within 700 ms/);
    expect(connectionError('h:1', 'GRID_ADDRESS', { code: 'ECONNRESET', message: 'socket hang up', connected: true }).message).toMatch(/closed the connection without an answer: is REST enabled/);
  });

  it('403 names the credentials sent (or the disabled group); 404 is exit 4; others exit 5 with status and reason', () => {
    const creds = 'cluster name "wrong" (from --cluster-name) and no password';
    const bad = httpError('cluster state', 'h:1', { status: 403, statusText: 'Forbidden', reason: 'first parameter must be the cluster name' }, creds);
    expect(bad.exitCode).toBe(EXIT.REFUSED);
    expect(bad.message).toContain('cluster state failed: HTTP 403 Forbidden from h:1: first parameter must be the cluster name. Sent: cluster name "wrong" (from --cluster-name)');
    expect(bad.message).toMatch(/--cluster-name or GRID_CLUSTER_NAME.*--user and --password/);
    const group = httpError('wan pause', 'h:1', { status: 403, statusText: 'Forbidden', reason: 'endpoint group WAN is disabled' }, creds);
    expect(group.exitCode).toBe(EXIT.REFUSED);
    expect(group.message).toMatch(/endpoint group WAN is disabled\. Enable it .*endpoint-groups: WAN/);
    expect(group.message).not.toContain('Sent:');
    expect(httpError('wan progress x', 'h:1', { status: 404, statusText: 'Not Found', reason: 'no WAN sync' }, creds).exitCode).toBe(EXIT.NOT_FOUND);
    const full = httpError('queue offer q', 'h:1', { status: 503, statusText: 'Service Unavailable', reason: 'queue "q" is full (max-size 1)' }, creds);
    expect(full.exitCode).toBe(EXIT.MEMBER_ERROR);
    expect(full.message).toBe('queue offer q failed: HTTP 503 Service Unavailable from h:1: queue "q" is full (max-size 1)');
    expect(httpError('x', 'h:1', { status: 500, statusText: '', reason: undefined }, creds).message).toBe('x failed: HTTP 500 from h:1: (no X-Grid-Error reason)');
  });
});

describe('output', () => {
  it('tables: aligned columns, numbers right-aligned, no trailing spaces', () => {
    expect(table([{ title: 'NAME' }, { title: 'N', right: true }, { title: 'NOTE' }], [['a', '1', ''], ['long name', '100', 'x']])).toBe(
      ['NAME         N  NOTE', 'a            1', 'long name  100  x'].join('\n'),
    );
  });

  it('status: the replicas each partition has, never more than the data members; what is missing is said', () => {
    expect(replicasText(2, 3)).toBe('2 replicas each');
    expect(replicasText(2, 2)).toBe('2 replicas each');
    expect(replicasText(1, 1)).toBe('1 replica each');
    expect(replicasText(2, 1)).toBe('1 replica each (1 backup configured; 1 not held: no other data member)');
    expect(replicasText(4, 2)).toBe('2 replicas each (3 backups configured; 2 not held: only 2 data members)');
    // Only lite members (no data member): the table is empty; said as the owner's single copy.
    expect(replicasText(2, 0)).toBe('1 replica each (1 backup configured; 1 not held: only 0 data members)');
  });

  it('status: a row per member with role, owned and backups; the asked member starred; a departed uuid shown', () => {
    const text = formatStatus(
      { nodeState: 'ACTIVE', clusterState: 'FROZEN', clusterSafe: false, migrationQueueSize: 3, clusterSize: 3 },
      {
        members: [
          { address: '127.0.0.1:5701', liteMember: false, localMember: false, uuid: 'u1', memberVersion: '0.1.0' },
          { address: '127.0.0.1:5702', liteMember: false, localMember: true, uuid: 'u2', memberVersion: '0.1.0' },
          { address: '127.0.0.1:5703', liteMember: true, localMember: false, uuid: 'u3', memberVersion: '0.1.0' },
        ],
        connectionCount: 1,
        allConnectionCount: 5,
      },
      {
        version: 12,
        partitionCount: 271,
        replicaCount: 2,
        migrationQueueSize: 3,
        clusterSafe: false,
        members: [
          { uuid: 'u1', address: '127.0.0.1:5701', owned: 136, backups: 130 },
          { uuid: 'u2', address: '127.0.0.1:5702', owned: 130, backups: 136 },
          { uuid: 'u9', address: null, owned: 5, backups: 0 },
        ],
      },
    );
    expect(text).toBe(
      [
        'Cluster state: FROZEN   members: 3   safe: NO (3 migrations queued)',
        'Partitions: 271, 2 replicas each (table version 12)',
        'Asked: 127.0.0.1:5702 (node state ACTIVE)',
        '',
        'MEMBER            UUID  ROLE          VERSION  OWNED  BACKUPS',
        '127.0.0.1:5701    u1    master        0.1.0      136      130',
        '127.0.0.1:5702 *  u2    data          0.1.0      130      136',
        '127.0.0.1:5703    u3    lite          0.1.0        0        0',
        '(gone)            u9    not a member               5        0',
        '',
        '* the member asked. OWNED/BACKUPS: partitions it owns and backup replicas it holds.',
      ].join('\n'),
    );
  });

  it('status: the asked member\'s persistence, when it has persistence: OK, or the disk state, since when and why', () => {
    const cluster = { members: [{ address: '127.0.0.1:5701', liteMember: false, localMember: true, uuid: 'u1', memberVersion: '0.1.0' }], connectionCount: 0, allConnectionCount: 0 };
    const partitions = { version: 2, partitionCount: 271, replicaCount: 1, migrationQueueSize: 0, clusterSafe: true, members: [{ uuid: 'u1', address: '127.0.0.1:5701', owned: 271, backups: 0 }] };
    const health = { nodeState: 'ACTIVE', clusterState: 'ACTIVE', clusterSafe: true, migrationQueueSize: 0, clusterSize: 1 };
    const line = (h: typeof health & { persistence?: { state: string; reason?: string; since: number } }): string | undefined => formatStatus(h, cluster, partitions).split('\n')[3];
    expect(line(health)).toBe('');
    expect(line({ ...health, persistence: { state: 'OK', since: 0 } })).toBe('Persistence: OK');
    expect(line({ ...health, persistence: { state: 'DISK_FULL', reason: 'ENOSPC: no space left on device, write', since: Date.UTC(2026, 10, 29, 7, 0, 0) } })).toBe(
      'Persistence: DISK_FULL since 2026-11-29T07:00:00.000Z: writes of persisted maps and queues refused until space is free (ENOSPC: no space left on device, write)',
    );
    expect(line({ ...health, persistence: { state: 'FAILED', reason: 'EIO: i/o error, fdatasync', since: 0 } })).toBe(
      'Persistence: FAILED since 1970-01-01T00:00:00.000Z: writes of persisted maps and queues refused until the member restarts (EIO: i/o error, fdatasync)',
    );
  });

  it('progress bars: clamped, rounded, fixed width', () => {
    expect(progressBar(0, 10)).toBe('[..........]   0%');
    expect(progressBar(42, 10)).toBe('[####......]  42%');
    expect(progressBar(100, 10)).toBe('[##########] 100%');
    expect(progressBar(150, 10)).toBe('[##########] 100%');
    expect(progressBar(Number.NaN, 10)).toBe('[..........]   0%');
    expect(progressBar(55)).toHaveLength(2 + 30 + 5);
    const p = { stage: 'IN_PROGRESS', progress: 42, wanReplicationName: 'to-b', wanPublisherId: 'B', creationTime: 1 };
    expect(syncProgressLine('2b0c4f0e-6d7a', p, 1234, false)).toBe('sync 2b0c4f0e (to-b/B): IN_PROGRESS 42% after 1.2 s');
    expect(syncProgressLine('2b0c4f0e-6d7a', p, undefined, false)).toBe('sync 2b0c4f0e (to-b/B): IN_PROGRESS 42%');
    expect(syncProgressLine('2b0c4f0e-6d7a', p, 1234, true)).toBe(`${progressBar(42)}  IN_PROGRESS  sync 2b0c4f0e (to-b/B)  1.2 s`);
  });

  it('WAN publishers and consistency results', () => {
    expect(formatWanStatus('h:1', [])).toBe('h:1 has no WAN publishers.');
    const pub: WanPublisherAnswer = {
      wanReplicationName: 'to-b',
      publisherId: 'B',
      targetClusterName: 'B',
      state: 'PAUSED',
      endpoints: [{ address: '127.0.0.1:5801', status: 'up' }],
      queueCapacity: 10000,
      primaryQueueSize: 12,
      backupQueueSize: 3,
      eventsQueued: 20,
      eventsSent: 8,
      eventsAcknowledged: 8,
      eventsDropped: 0,
      writesRefused: 0,
      batchesSent: 2,
      batchesFailed: 0,
      lastAckTime: null,
      lagMillis: 412,
    };
    const lines = formatWanStatus('h:1', [pub]).split('\n');
    expect(lines[0]).toBe('WAN publishers on h:1 (figures of this member only):');
    expect(lines[2]).toMatch(/^REPLICATION\s+PUBLISHER\s+TARGET\s+STATE\s+ENDPOINTS\s+QUEUE\s+BACKUP\s+LAG\s+ACKED\s+DROPPED$/);
    expect(lines[3]).toMatch(/^to-b\s+B\s+B\s+PAUSED\s+127\.0\.0\.1:5801 up\s+12\/10000\s+3\s+412 ms\s+8\s+0$/);
    expect(lines).toHaveLength(4);
    // An endpoint that is down: for how long and why in the table, since when and the reason below it.
    const since = Date.UTC(2026, 10, 29, 7, 0, 0);
    const down: WanPublisherAnswer = {
      ...pub,
      endpoints: [
        { address: '127.0.0.1:5801', status: 'down', since, reason: 'nothing came back from 127.0.0.1:5801 for 5003 ms (heartbeat-timeout-millis 5000)', cause: 'heartbeat-timeout' },
        { address: '127.0.0.1:5802', status: 'up', since, reason: null, cause: null },
      ],
    };
    const dl = formatWanStatus('h:1', [down], since + 42_400).split('\n');
    expect(dl[3]).toMatch(/127\.0\.0\.1:5801 down 42s \(heartbeat-timeout\), 127\.0\.0\.1:5802 up\s/);
    expect(dl.slice(4)).toEqual(['', 'to-b/B 127.0.0.1:5801 down since 2026-11-29T07:00:00.000Z: nothing came back from 127.0.0.1:5801 for 5003 ms (heartbeat-timeout-millis 5000)']);
    const check = {
      stage: 'FAILED',
      wanReplicationName: 'to-b',
      wanPublisherId: 'B',
      mapName: 'orders',
      creationTime: 1,
      partitionsChecked: 271,
      partitionsDiffering: 1,
      leavesChecked: 4336,
      leavesDiffering: 1,
      entriesToSync: 2,
      failure: 'the target map has no merkle-tree',
    };
    expect(formatConsistency('u-1', check)).toBe(
      [
        'consistency check u-1 of map orders through to-b/B: FAILED',
        'partitions checked 271, differing 1; leaves checked 4336, differing 1; entries to sync 2',
        'failure: the target map has no merkle-tree',
      ].join('\n'),
    );
  });

  it('CP groups, members, sessions, status and locks', () => {
    expect(formatCpGroups([{ name: 'default', id: 1 }, { name: 'METADATA', id: 0 }])).toBe(['GROUP     ID', 'METADATA   0', 'default    1'].join('\n'));
    expect(formatCpMembers([{ uuid: 'a', address: '[127.0.0.1]:1' }, { uuid: 'b', address: '[127.0.0.1]:2' }], 'b')).toBe(
      ['CP MEMBER UUID  ADDRESS', 'a               [127.0.0.1]:1', 'b               [127.0.0.1]:2 *', '', '* the member asked'].join('\n'),
    );
    expect(formatCpSessions('g', [])).toBe('CP group g has no sessions.');
    expect(formatCpSessions('g', [{ id: 7, creationTime: 0, expirationTime: Date.UTC(2030, 0, 1), version: 1, endpoint: '[127.0.0.1]:4000', endpointType: 'CLIENT', endpointName: 'grid-cli/0.1.0' }])).toBe(
      ['SESSION  ENDPOINT          TYPE    NAME            CREATED  EXPIRES', '      7  [127.0.0.1]:4000  CLIENT  grid-cli/0.1.0  -        2030-01-01T00:00:00.000Z'].join('\n'),
    );
    expect(formatCpStatus('h:1', { enabled: false, groups: [] })).toBe('h:1: the CP subsystem is not enabled.');
    expect(formatCpStatus('h:1', { enabled: true, seed: 5, viewVersion: 2, groups: [] })).toBe('h:1: not a CP member, seed 5, view version 2\nIt hosts no CP group.');
    const st = formatCpStatus('h:1', {
      enabled: true,
      seed: 5,
      cpMemberUuid: 'c1',
      viewVersion: 2,
      groups: [{ name: 'METADATA', id: 0, role: 'leader', term: 3, leader: 'c1', commitIndex: 10, lastApplied: 10, members: ['c1'] }],
    });
    expect(st.split('\n')[0]).toBe('h:1: CP member c1, seed 5, view version 2');
    expect(st.split('\n')[3]).toMatch(/^METADATA\s+0\s+leader\s+3\s+c1\s+10\s+10$/);
    expect(formatLock('l', { acquired: true, fence: 3, sessionId: 7, lockCount: 1, group: 'default' })).toBe('locked l (group default): fence 3, session 7, lock count 1');
    expect(formatLock('l', { acquired: false, fence: 0, sessionId: 8, lockCount: 0, group: 'default' })).toMatch(/was not acquired/);
    expect(formatLockInfo('l', { locked: true, sessionId: 7, fence: 3, lockCount: 2, waiters: 1, group: 'default' })).toBe('l (group default): locked by session 7, fence 3, lock count 2, 1 waiting');
    expect(formatLockInfo('l', { locked: false, sessionId: 0, fence: 0, lockCount: 0, waiters: 0, group: 'g' })).toBe('l (group g): not locked');
  });
});
