// With security on, REST credentials are checked against the client-authentication realm
// only; a config where nobody could authenticate is refused everywhere and warned about.

import { describe, expect, it } from 'vitest';
import { buildRequest, rawRequest } from '../support/http.js';
import { restConfig, startMember } from '../support/member.js';

const STATE = '/hazelcast/rest/management/cluster/state';
const WARNING = 'every REST call that takes credentials will be refused';
const realm = { name: 'only', authentication: { simple: { users: [{ username: 'ops', password: 'pw', roles: ['admin'] }] } } };

async function state(port: number, body: string): Promise<number> {
  return (await rawRequest(port, buildRequest('POST', STATE, { body, headers: { Connection: 'close' } }))).status;
}

describe('security and the client-authentication realm', () => {
  it('accepts the users of the client-authentication realm, silently', async () => {
    const { port, logs } = await startMember(
      restConfig(undefined, { security: { enabled: true, realms: [realm], 'client-authentication': { realm: 'only' } } }),
    );
    expect(await state(port, 'ops&pw')).toBe(200);
    expect(await state(port, 'ops&nope')).toBe(403);
    expect(logs.messages().some((m) => m.includes(WARNING))).toBe(false);
  });

  it('refuses everyone and warns at start when no client-authentication realm is named', async () => {
    const { port, logs } = await startMember(restConfig(undefined, { security: { enabled: true, realms: [realm] } }));
    expect(logs.messages().some((m) => m.includes(WARNING))).toBe(true);
    expect(await state(port, 'ops&pw')).toBe(403);
    expect(await state(port, 'dev&')).toBe(403);
  });
});
