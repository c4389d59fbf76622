// The security reader: `security` with its realms (simple users, username-password identity)
// and which realm authenticates members and clients. Nothing here echoes a password.

import { DEFAULT_SECURITY_ENABLED } from '../defaults.js';
import { isRecord, type Problems } from '../problems.js';
import type { RealmConfig, SecurityConfig, SimpleUser } from '../types.js';
import { readList, Section, type Raw } from './section.js';
import { IGNORED_AUTHENTICATION, IGNORED_IDENTITY, IGNORED_REALM, IGNORED_SECURITY, IGNORED_SIMPLE_AUTHENTICATION } from './unused-elements.js';

export function readSecurity(problems: Problems, s: Section): SecurityConfig {
  const enabled = s.bool('enabled', DEFAULT_SECURITY_ENABLED);
  const realms: RealmConfig[] = [];
  const rawRealms = s.raw('realms');
  const realmsPath = s.at('realms');
  const realmList: Raw[] = Array.isArray(rawRealms) ? rawRealms : rawRealms === undefined ? [] : [rawRealms];
  if (rawRealms !== undefined && !Array.isArray(rawRealms) && !isRecord(rawRealms)) {
    problems.error(realmsPath, 'must be a list of realms');
  }
  realmList.forEach((item, i) => {
    const r = Section.of(problems, `${realmsPath}[${i}]`, item);
    const name = r.requiredStr('name');
    if (name !== '' && realms.some((x) => x.name === name)) problems.error(r.at('name'), `duplicate realm name "${name}"`);
    const users: SimpleUser[] = [];
    const auth = r.child('authentication');
    if (auth.has('simple')) {
      const simple = auth.child('simple');
      const rawUsers = simple.raw('users');
      const userList: Raw[] = Array.isArray(rawUsers) ? rawUsers : rawUsers === undefined ? [] : [rawUsers];
      userList.forEach((u, j) => {
        const us = Section.of(problems, `${simple.at('users')}[${j}]`, u);
        const username = us.requiredStr('username');
        const password = us.requiredStr('password', { secret: true, allowEmpty: true });
        const roles = readList(problems, us.at('roles'), us.raw('roles')).map((x) => x.value);
        us.finish();
        users.push({ username, password, roles });
      });
      simple.finish(IGNORED_SIMPLE_AUTHENTICATION);
    }
    auth.finish(IGNORED_AUTHENTICATION);
    let identity: RealmConfig['identity'];
    if (r.has('identity')) {
      const id = r.child('identity');
      if (id.has('username-password')) {
        const up = id.child('username-password');
        identity = { username: up.requiredStr('username'), password: up.requiredStr('password', { secret: true, allowEmpty: true }) };
        up.finish();
      }
      id.finish(IGNORED_IDENTITY);
    }
    r.finish(IGNORED_REALM);
    realms.push({ name, users, identity });
  });
  const realmRef = (key: string): string | undefined => {
    if (!s.has(key)) {
      s.raw(key);
      return undefined;
    }
    const a = s.child(key);
    const realm = a.requiredStr('realm');
    a.finish();
    if (realm !== '' && !realms.some((x) => x.name === realm)) {
      problems.error(a.at('realm'), `realm "${realm}" is not defined under security.realms`);
    }
    return realm === '' ? undefined : realm;
  };
  const memberAuthenticationRealm = realmRef('member-authentication');
  const clientAuthenticationRealm = realmRef('client-authentication');
  s.finish(IGNORED_SECURITY);
  return { enabled, realms, memberAuthenticationRealm, clientAuthenticationRealm };
}
