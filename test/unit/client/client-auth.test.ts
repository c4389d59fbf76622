// Whether a client authenticates (decideClientAuth): every combination of serialization
// version, cluster name, security on/off and credentials, against the realm as the member
// builds it from config (createCredentialChecker); the reasons never hold a password.

import { describe, expect, it } from 'vitest';
import { AuthStatus } from '../../../src/client/auth-codec.js';
import { decideClientAuth } from '../../../src/client/client-auth.js';
import { configFromObject } from '../../../src/config/index.js';
import { createCredentialChecker } from '../../../src/security/credentials.js';

const realm = (users: { username: string; password: string }[]) => ({ name: 'clients', authentication: { simple: { users: users.map((u) => ({ ...u, roles: ['admin'] })) } } });
const checker = (security: Record<string, unknown> | undefined) =>
  createCredentialChecker(configFromObject({ 'cluster-name': 'dev', ...(security !== undefined ? { security } : {}) }).config);

const OFF = checker(undefined);
const ON = checker({ enabled: true, realms: [realm([{ username: 'app', password: 's3cret' }, { username: 'ops', password: 'other' }])], 'client-authentication': { realm: 'clients' } });
const NO_USERS = checker({ enabled: true, realms: [realm([])], 'client-authentication': { realm: 'clients' } });
const NO_REALM = checker({ enabled: true, realms: [realm([{ username: 'app', password: 's3cret' }])] });

const req = (over: Partial<{ serializationVersion: number; clusterName: string; username: string | null; password: string | null }> = {}) => ({
  serializationVersion: 1,
  clusterName: 'dev',
  username: null,
  password: null,
  ...over,
});

describe('decideClientAuth', () => {
  it('security off: the cluster name decides, credentials are ignored (as an open-source Hazelcast member)', () => {
    expect(decideClientAuth(req(), 'dev', OFF)).toEqual({ status: AuthStatus.AUTHENTICATED });
    expect(decideClientAuth(req({ username: 'anyone', password: 'anything' }), 'dev', OFF)).toEqual({ status: AuthStatus.AUTHENTICATED });
    expect(decideClientAuth(req({ clusterName: 'prod' }), 'dev', OFF)).toMatchObject({ status: AuthStatus.CREDENTIALS_FAILED, reason: expect.stringContaining('"prod"') });
  });

  it('a serialization version other than 1 is refused first, whatever else', () => {
    for (const c of [OFF, ON]) {
      expect(decideClientAuth(req({ serializationVersion: 2, clusterName: 'prod' }), 'dev', c).status).toBe(AuthStatus.SERIALIZATION_VERSION_MISMATCH);
    }
  });

  it('security on: each user of the client-authentication realm with its own password, nothing else', () => {
    expect(decideClientAuth(req({ username: 'app', password: 's3cret' }), 'dev', ON)).toEqual({ status: AuthStatus.AUTHENTICATED });
    expect(decideClientAuth(req({ username: 'ops', password: 'other' }), 'dev', ON)).toEqual({ status: AuthStatus.AUTHENTICATED });
    const refused: [string | null, string | null][] = [
      ['app', 'other'], // another user's password
      ['ops', 's3cret'],
      ['app', 's3cre'],
      ['app', 's3cret '],
      ['App', 's3cret'],
      ['app', ''],
      ['app', null],
      ['nobody', 's3cret'],
      ['', ''],
    ];
    for (const [username, password] of refused) {
      const d = decideClientAuth(req({ username, password }), 'dev', ON);
      expect(d.status, `${username}/${password}`).toBe(AuthStatus.CREDENTIALS_FAILED);
      if (d.status !== AuthStatus.AUTHENTICATED && password) expect(d.reason).not.toContain(password);
    }
  });

  it('security on: no credentials, the wrong cluster (checked before the user), an empty or unnamed realm are refused with a reason', () => {
    expect(decideClientAuth(req(), 'dev', ON)).toMatchObject({ status: AuthStatus.CREDENTIALS_FAILED, reason: expect.stringContaining('no username and password') });
    const other = decideClientAuth(req({ clusterName: 'prod', username: 'app', password: 's3cret' }), 'dev', ON);
    expect(other).toMatchObject({ status: AuthStatus.CREDENTIALS_FAILED, reason: expect.stringContaining('cluster name') });
    for (const c of [NO_USERS, NO_REALM]) {
      expect(decideClientAuth(req({ username: 'app', password: 's3cret' }), 'dev', c)).toMatchObject({
        status: AuthStatus.CREDENTIALS_FAILED,
        reason: expect.stringContaining('has no users'),
      });
    }
  });
});
