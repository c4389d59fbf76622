// log-level, license, CP, WAN and config/tcp-ip/member-list (grid-behavior.md §2, §3, §8).

import { describe, expect, it } from 'vitest';
import { restConfig, startMember, type StartedMember } from '../support/member.js';
import { sendRequest, type RawResponse } from '../support/http.js';

const LOG = '/hazelcast/rest/log-level';

function json(res: RawResponse): unknown {
  expect(res.headers['content-type']).toBe('application/json');
  return JSON.parse(res.body.toString('utf8'));
}

function expectEmptyError(res: RawResponse, status: number, reason?: string): void {
  expect(res.status).toBe(status);
  expect(res.body.length).toBe(0);
  expect(res.headers['content-length']).toBe('0');
  if (reason === undefined) expect(res.headers['x-grid-error']).toBeTruthy();
  else expect(res.headers['x-grid-error']).toBe(reason);
}

describe('log level', () => {
  /** Logs a FINE (debug) line through the member's own logger; true when it reached the log. */
  let probes = 0;
  function fineLineLogged(m: StartedMember): boolean {
    const marker = `fine-probe-${++probes}`;
    m.member.logger.debug(marker);
    return m.logs.messages().includes(marker);
  }

  it('GET is null until set; POST sets it at run time, any case; reset restores the configured level', async () => {
    const m = await startMember();
    const { port, member } = m;

    for (const prefix of ['/grid', '/hazelcast']) {
      const res = await sendRequest(port, 'GET', `${prefix}/rest/log-level`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('{"logLevel":null}');
    }
    expect(member.logger.level).toBe('info');
    expect(fineLineLogged(m)).toBe(false);

    const set = await sendRequest(port, 'POST', LOG, { body: 'dev&&fine' });
    expect(set.status).toBe(200);
    expect(json(set)).toMatchObject({ status: 'success' });
    expect(json(await sendRequest(port, 'GET', LOG))).toEqual({ logLevel: 'FINE' });
    expect(member.logger.level).toBe('debug');
    // The member really logs at FINE now.
    expect(fineLineLogged(m)).toBe(true);

    const finest = await sendRequest(port, 'POST', LOG, { body: 'dev&&Finest' });
    expect(finest.status).toBe(200);
    expect(json(await sendRequest(port, 'GET', LOG))).toEqual({ logLevel: 'FINEST' });
    expect(member.logger.isLevelEnabled('trace')).toBe(true);

    const reset = await sendRequest(port, 'POST', `${LOG}/reset`, { body: 'dev&' });
    expect(reset.status).toBe(200);
    expect(json(reset)).toMatchObject({ status: 'success' });
    expect(json(await sendRequest(port, 'GET', LOG))).toEqual({ logLevel: null });
    expect(member.logger.level).toBe('info');
    expect(fineLineLogged(m)).toBe(false);
  });

  it('reset goes back to the level configured by hazelcast.logging.level', async () => {
    const { port, member, logs } = await startMember(restConfig(undefined, { properties: { 'hazelcast.logging.level': 'WARNING' } }));
    expect(member.logger.level).toBe('warn');
    expect((await sendRequest(port, 'POST', LOG, { body: 'dev&&INFO' })).status).toBe(200);
    expect(member.logger.level).toBe('info');
    expect((await sendRequest(port, 'POST', `${LOG}/reset`, { body: 'dev&' })).status).toBe(200);
    expect(member.logger.level).toBe('warn');
    expect(json(await sendRequest(port, 'GET', LOG))).toEqual({ logLevel: null });
    // OFF silences the member.
    expect((await sendRequest(port, 'POST', LOG, { body: 'dev&&off' })).status).toBe(200);
    const before = logs.lines.length;
    expect((await sendRequest(port, 'POST', '/hazelcast/rest/cp-subsystem/reset', { body: 'dev&' })).status).toBe(500);
    expect(logs.lines.length).toBe(before);
  });

  it('an unknown level is a 400 and changes nothing; wrong cluster name 403; too few parameters 400', async () => {
    const { port, member } = await startMember();
    expect((await sendRequest(port, 'POST', LOG, { body: 'dev&&fine' })).status).toBe(200);
    for (const bad of ['LOUD', 'debug', 'warn', '']) {
      expectEmptyError(await sendRequest(port, 'POST', LOG, { body: `dev&&${bad}` }), 400);
    }
    expectEmptyError(await sendRequest(port, 'POST', LOG, { body: 'prod&&info' }), 403);
    expectEmptyError(await sendRequest(port, 'POST', LOG, { body: 'dev&' }), 400);
    expectEmptyError(await sendRequest(port, 'POST', `${LOG}/reset`, { body: 'prod&' }), 403);
    expect(json(await sendRequest(port, 'GET', LOG))).toEqual({ logLevel: 'FINE' });
    expect(member.logger.level).toBe('debug');
  });
});

describe('license', () => {
  it('POST answers success after the credential check; GET is a 400', async () => {
    const { port } = await startMember();
    for (const body of ['dev&&SOME-LICENSE-KEY', 'dev&']) {
      const res = await sendRequest(port, 'POST', '/grid/rest/license', { body });
      expect(res.status, body).toBe(200);
      expect(json(res), body).toEqual({ status: 'success' });
    }
    expectEmptyError(await sendRequest(port, 'POST', '/hazelcast/rest/license', { body: 'prod&&KEY' }), 403);
    expectEmptyError(await sendRequest(port, 'POST', '/hazelcast/rest/license', { body: 'dev' }), 400);
    for (const prefix of ['/grid', '/hazelcast']) expectEmptyError(await sendRequest(port, 'GET', `${prefix}/rest/license`), 400);
  });
});

describe('CP subsystem', () => {
  const CP_OFF = 'CP subsystem is not enabled';

  it('answers 500 "CP subsystem is not enabled" and keeps serving', async () => {
    const { port, logs } = await startMember();
    for (const path of ['/hazelcast/rest/cp-subsystem/groups', '/grid/rest/cp-subsystem/members', '/hazelcast/rest/cp-subsystem/groups/default']) {
      expectEmptyError(await sendRequest(port, 'GET', path), 500, CP_OFF);
    }
    expectEmptyError(await sendRequest(port, 'POST', '/hazelcast/rest/cp-subsystem/reset', { body: 'dev&' }), 500, CP_OFF);
    // The credential check comes first.
    expectEmptyError(await sendRequest(port, 'POST', '/hazelcast/rest/cp-subsystem/reset', { body: 'prod&' }), 403);
    // 5xx are logged with their cause.
    expect(logs.lines.some((l) => JSON.stringify(l).includes(CP_OFF))).toBe(true);
    expect((await sendRequest(port, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  });

  it('is 403 when the CP group is disabled', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ', 'HEALTH_CHECK']));
    expectEmptyError(await sendRequest(port, 'GET', '/hazelcast/rest/cp-subsystem/groups'), 403, 'endpoint group CP is disabled');
    expectEmptyError(await sendRequest(port, 'POST', '/hazelcast/rest/cp-subsystem/reset', { body: 'dev&' }), 403, 'endpoint group CP is disabled');
  });
});

describe('WAN', () => {
  const W = '/hazelcast/rest/wan';
  const POSTS: [string, string][] = [
    ['clearWanQueues', 'dev&&wr&pub'],
    ['pausePublisher', 'dev&&wr&pub'],
    ['resumePublisher', 'dev&&wr&pub'],
    ['stopPublisher', 'dev&&wr&pub'],
    ['sync/map', 'dev&&wr&pub&orders'],
    ['sync/allmaps', 'dev&&wr&pub'],
    ['consistencyCheck/map', 'dev&&wr&pub&orders'],
    ['addWanConfig', 'dev&&{"name":"wr","batchPublishers":[{"clusterName":"b","targetEndpoints":"127.0.0.1:5801"}]}'],
  ];

  it('without wan-replication config, operations name the unknown replication (400) and progress is 404', async () => {
    const { port } = await startMember();
    for (const [op, body] of POSTS.filter(([o]) => o !== 'addWanConfig')) {
      const res = await sendRequest(port, 'POST', `${W}/${op}`, { body });
      expectEmptyError(res, 400);
      expect(res.headers['x-grid-error'], op).toContain('wr');
    }
    expectEmptyError(await sendRequest(port, 'GET', '/grid/rest/wan/sync/progress/4b3a5a4e-0c55-4d39-9f0c-6ad8d1a6c2a1'), 404);
    expect((await sendRequest(port, 'GET', '/hazelcast/health/ready')).status).toBe(200);
  });

  it('checks credentials and parameter counts first; unknown WAN operations are 400', async () => {
    const { port } = await startMember();
    for (const [op, body] of POSTS) {
      expectEmptyError(await sendRequest(port, 'POST', `${W}/${op}`, { body: body.replace(/^dev/, 'prod') }), 403);
    }
    expectEmptyError(await sendRequest(port, 'POST', `${W}/pausePublisher`, { body: 'dev&&wr' }), 400, 'expected 4 parameters separated by "&", got 3');
    expectEmptyError(await sendRequest(port, 'POST', `${W}/sync/map`, { body: 'dev&&wr&pub' }), 400);
    expectEmptyError(await sendRequest(port, 'POST', `${W}/pause`, { body: 'dev&&wr&pub' }), 400);
    expectEmptyError(await sendRequest(port, 'GET', `${W}/pausePublisher`), 400);
    expectEmptyError(await sendRequest(port, 'GET', `${W}/sync/progress/`), 400);
  });

  it('is 403 when the WAN group is disabled', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'DATA']));
    for (const [op, body] of POSTS) {
      expectEmptyError(await sendRequest(port, 'POST', `${W}/${op}`, { body }), 403, 'endpoint group WAN is disabled');
    }
    expectEmptyError(await sendRequest(port, 'GET', `${W}/sync/progress/abc`), 403, 'endpoint group WAN is disabled');
  });
});

describe('config/tcp-ip/member-list', () => {
  const PATH = '/hazelcast/rest/config/tcp-ip/member-list';

  it('GET answers the configured list; POST replaces it', async () => {
    const { port } = await startMember(
      restConfig(undefined, {
        network: { join: { 'tcp-ip': { enabled: true, 'member-list': ['127.0.0.1:5702', '127.0.0.1:5703'] } } },
      }),
    );
    const first = await sendRequest(port, 'GET', PATH);
    expect(first.status).toBe(200);
    expect(json(first)).toEqual({ status: 'success', 'member-list': ['127.0.0.1:5702', '127.0.0.1:5703'] });

    const set = await sendRequest(port, 'POST', PATH, { body: 'dev&&10.0.0.1:5701-5703, member-b , [::1]:5701' });
    expect(set.status).toBe(200);
    expect(json(set)).toEqual({ status: 'success', 'member-list': ['10.0.0.1:5701-5703', 'member-b', '[::1]:5701'] });
    expect(json(await sendRequest(port, 'GET', '/grid/rest/config/tcp-ip/member-list'))).toEqual({
      status: 'success',
      'member-list': ['10.0.0.1:5701-5703', 'member-b', '[::1]:5701'],
    });
  });

  it('refuses bad entries (400), wrong cluster name (403) and too few parameters (400) without changing the list', async () => {
    const { port } = await startMember();
    expect(json(await sendRequest(port, 'GET', PATH))).toEqual({ status: 'success', 'member-list': [] });
    expectEmptyError(await sendRequest(port, 'POST', PATH, { body: 'dev&&10.0.0.1:5701,not a host' }), 400);
    expectEmptyError(await sendRequest(port, 'POST', PATH, { body: 'prod&&10.0.0.1' }), 403);
    expectEmptyError(await sendRequest(port, 'POST', PATH, { body: 'dev&' }), 400);
    expect(json(await sendRequest(port, 'GET', PATH))).toEqual({ status: 'success', 'member-list': [] });
  });

  it('GET is CLUSTER_READ and POST is CLUSTER_WRITE', async () => {
    const { port } = await startMember(restConfig(['CLUSTER_READ']));
    expect((await sendRequest(port, 'GET', PATH)).status).toBe(200);
    expectEmptyError(await sendRequest(port, 'POST', PATH, { body: 'dev&&10.0.0.1' }), 403, 'endpoint group CLUSTER_WRITE is disabled');
  });
});
