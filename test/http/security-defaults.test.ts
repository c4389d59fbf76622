// With security on and no client-authentication realm named, REST credentials are checked
// against the simple users of every realm; with no users at all the member warns at start.

import { describe, expect, it } from 'vitest';
import { buildRequest, rawRequest } from '../support/http.js';
import { restConfig, startMember } from '../support/member.js';

const STATE = '/hazelcast/rest/management/cluster/state';

describe('security without client-authentication', () => {
  it('accepts the users of the realms and refuses everyone else', async () => {
    const { port, logs } = await startMember(
      restConfig(undefined, {
        security: {
          enabled: true,
          realms: [{ name: 'only', authentication: { simple: { users: [{ username: 'ops', password: 'pw', roles: ['admin'] }] } } }],
        },
      }),
    );
    const ok = await rawRequest(port, buildRequest('POST', STATE, { body: 'ops&pw', headers: { Connection: 'close' } }));
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString())).toEqual({ status: 'success', state: 'active' });
    const wrong = await rawRequest(port, buildRequest('POST', STATE, { body: 'ops&nope', headers: { Connection: 'close' } }));
    expect(wrong.status).toBe(403);
    expect(logs.messages().some((m) => m.includes('no realm has simple-authentication users'))).toBe(false);
  });

  it('warns at start when no user could ever authenticate', async () => {
    const { port, logs } = await startMember(restConfig(undefined, { security: { enabled: true } }));
    expect(logs.messages().some((m) => m.includes('no realm has simple-authentication users'))).toBe(true);
    const res = await rawRequest(port, buildRequest('POST', STATE, { body: 'dev&', headers: { Connection: 'close' } }));
    expect(res.status).toBe(403);
  });
});
