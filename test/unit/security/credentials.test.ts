import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { createCredentialChecker, parseBasicAuth } from '../../../src/security/credentials.js';

const basic = (userPass: string): string => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

describe('parseBasicAuth', () => {
  it('reads username and password', () => {
    expect(parseBasicAuth(basic('admin:secret'))).toEqual({ username: 'admin', password: 'secret' });
  });

  it('the scheme is case-insensitive and whitespace around is tolerated', () => {
    const token = Buffer.from('u:p').toString('base64');
    for (const h of [`basic ${token}`, `BASIC ${token}`, `  Basic   ${token}  `, `Basic\t${token}`]) {
      expect(parseBasicAuth(h), h).toEqual({ username: 'u', password: 'p' });
    }
  });

  it('a password may contain ":" (only the first colon separates)', () => {
    expect(parseBasicAuth(basic('admin:pa:ss:'))).toEqual({ username: 'admin', password: 'pa:ss:' });
  });

  it('empty username or password', () => {
    expect(parseBasicAuth(basic(':pw'))).toEqual({ username: '', password: 'pw' });
    expect(parseBasicAuth(basic('dev:'))).toEqual({ username: 'dev', password: '' });
    expect(parseBasicAuth(basic(':'))).toEqual({ username: '', password: '' });
  });

  it('decodes UTF-8', () => {
    expect(parseBasicAuth(basic('üser:pässwörd🙂'))).toEqual({ username: 'üser', password: 'pässwörd🙂' });
  });

  it('accepts unpadded and URL-safe base64', () => {
    const token = Buffer.from('ab:c').toString('base64').replace(/=+$/, '');
    expect(parseBasicAuth(`Basic ${token}`)).toEqual({ username: 'ab', password: 'c' });
    const url = Buffer.from('u:??>>').toString('base64url');
    expect(url).toMatch(/[-_]/);
    expect(parseBasicAuth(`Basic ${url}`)).toEqual({ username: 'u', password: '??>>' });
  });

  it('undefined when absent or malformed', () => {
    expect(parseBasicAuth(undefined)).toBeUndefined();
    expect(parseBasicAuth('')).toBeUndefined();
    expect(parseBasicAuth('Basic')).toBeUndefined();
    expect(parseBasicAuth('Basic ')).toBeUndefined();
    expect(parseBasicAuth(basic('nocolon'))).toBeUndefined(); // no colon
    expect(parseBasicAuth(`Bearer ${Buffer.from('u:p').toString('base64')}`)).toBeUndefined(); // other scheme
    expect(parseBasicAuth(`Digest ${Buffer.from('u:p').toString('base64')}`)).toBeUndefined();
    expect(parseBasicAuth(`Basicx ${Buffer.from('u:p').toString('base64')}`)).toBeUndefined();
    expect(parseBasicAuth('Basic !!!!')).toBeUndefined();
    expect(parseBasicAuth(`Basic ${Buffer.from('u:p').toString('base64')} extra`)).toBeUndefined();
  });
});

describe('createCredentialChecker: security off', () => {
  it('the username must be the cluster name (default "dev"); the password is ignored', () => {
    const c = createCredentialChecker(configFromObject({}).config);
    expect(c.securityEnabled).toBe(false);
    expect(c.check('dev', '')).toBe(true);
    expect(c.check('dev', 'anything at all')).toBe(true);
    expect(c.check('Dev', '')).toBe(false);
    expect(c.check('dev ', '')).toBe(false);
    expect(c.check('', '')).toBe(false);
    expect(c.check('prod', '')).toBe(false);
  });

  it('uses the configured cluster name', () => {
    const c = createCredentialChecker(configFromObject({ 'cluster-name': 'prod-east' }).config);
    expect(c.check('prod-east', 'x')).toBe(true);
    expect(c.check('dev', 'x')).toBe(false);
    expect(c.check('prod-eas', 'x')).toBe(false);
    expect(c.check('prod-east-1', 'x')).toBe(false);
  });

  it('realm users do not count while security is off', () => {
    const c = createCredentialChecker(
      configFromObject({
        security: {
          enabled: false,
          realms: [{ name: 'r', authentication: { simple: { users: [{ username: 'admin', password: 'pw' }] } } }],
          'client-authentication': { realm: 'r' },
        },
      }).config,
    );
    expect(c.securityEnabled).toBe(false);
    expect(c.check('admin', 'pw')).toBe(false);
    expect(c.check('dev', '')).toBe(true);
  });
});

describe('createCredentialChecker: security on', () => {
  const secured = (extra: Record<string, unknown> = {}) =>
    createCredentialChecker(
      configFromObject({
        security: {
          enabled: true,
          realms: [
            {
              name: 'clients',
              authentication: {
                simple: {
                  users: [
                    { username: 'admin', password: 'S3cret', roles: ['admin'] },
                    { username: 'ops', password: '' },
                    { username: 'ünï', password: 'p:w&x' },
                  ],
                },
              },
            },
            { name: 'members', authentication: { simple: { users: [{ username: 'member', password: 'mpw' }] } } },
          ],
          'client-authentication': { realm: 'clients' },
          'member-authentication': { realm: 'members' },
          ...extra,
        },
      }).config,
    );

  it('accepts the users of the client-authentication realm', () => {
    const c = secured();
    expect(c.securityEnabled).toBe(true);
    expect(c.check('admin', 'S3cret')).toBe(true);
    expect(c.check('ops', '')).toBe(true);
    expect(c.check('ünï', 'p:w&x')).toBe(true);
  });

  it('rejects a wrong password, a wrong user, and the cluster name', () => {
    const c = secured();
    expect(c.check('admin', 's3cret')).toBe(false);
    expect(c.check('admin', 'S3cret ')).toBe(false);
    expect(c.check('admin', '')).toBe(false);
    expect(c.check('Admin', 'S3cret')).toBe(false);
    expect(c.check('nobody', 'S3cret')).toBe(false);
    expect(c.check('ops', 'x')).toBe(false);
    expect(c.check('dev', '')).toBe(false);
    // One user's password does not open another user.
    expect(c.check('admin', 'p:w&x')).toBe(false);
  });

  it('users of other realms (member-authentication) are not REST users', () => {
    expect(secured().check('member', 'mpw')).toBe(false);
  });

  it('without a client-authentication realm nobody gets in', () => {
    const c = createCredentialChecker(
      configFromObject({
        security: {
          enabled: true,
          realms: [{ name: 'r', authentication: { simple: { users: [{ username: 'admin', password: 'pw' }] } } }],
        },
      }).config,
    );
    expect(c.securityEnabled).toBe(true);
    expect(c.userCount).toBe(0);
    expect(c.check('admin', 'pw')).toBe(false);
    expect(c.check('dev', '')).toBe(false);
    expect(c.check('', '')).toBe(false);
  });

  it('a realm without simple users lets nobody in', () => {
    const c = createCredentialChecker(
      configFromObject({
        security: { enabled: true, realms: [{ name: 'r' }], 'client-authentication': { realm: 'r' } },
      }).config,
    );
    expect(c.check('', '')).toBe(false);
    expect(c.check('admin', 'pw')).toBe(false);
  });
});
