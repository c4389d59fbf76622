// Who may call the endpoints that take credentials. With security off, the "username" must
// be the cluster name and the password is ignored; with security on, username and password
// are checked against the simple-authentication users of the client-authentication realm.
// Comparisons take the same time whether or not they match; passwords are never logged.

import { timingSafeEqual, createHash } from 'node:crypto';
import type { GridConfig, SimpleUser } from '../config/types.js';

export interface CredentialChecker {
  readonly securityEnabled: boolean;
  /** How many users can authenticate (security enabled); 0 means every checked call is refused. */
  readonly userCount: number;
  check(username: string, password: string): boolean;
}

function sameText(a: string, b: string): boolean {
  // Hash both so inputs of different length compare in constant time too.
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

export function createCredentialChecker(config: GridConfig): CredentialChecker {
  const sec = config.security;
  if (!sec.enabled) {
    return {
      securityEnabled: false,
      userCount: 0,
      check: (username) => sameText(username, config.clusterName),
    };
  }
  // Only the client-authentication realm's users; without that realm nobody (grid-behavior §7).
  const users: readonly SimpleUser[] = sec.realms.find((r) => r.name === sec.clientAuthenticationRealm)?.users ?? [];
  return {
    securityEnabled: true,
    userCount: users.length,
    check(username, password) {
      let ok = false;
      for (const u of users) {
        // No early exit: every user is compared.
        if (sameText(u.username, username) && sameText(u.password, password)) ok = true;
      }
      return ok;
    },
  };
}

/** Username and password of an `Authorization: Basic` header; undefined when absent or malformed. */
export function parseBasicAuth(header: string | undefined): { username: string; password: string } | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** How a member proves itself when it connects to another, and checks those who connect to it. */
export interface MemberAuthChecker {
  readonly clusterName: string;
  /** The identity this member presents (security on), from its member-authentication realm. */
  readonly identity: { readonly username: string; readonly password: string } | undefined;
  /** Why a connecting member is refused, or undefined when it may connect. */
  verify(clusterName: string, username: string | undefined, password: string | undefined): { code: 'CONFLICT' | 'FORBIDDEN'; reason: string } | undefined;
}

export function createMemberAuth(config: GridConfig): MemberAuthChecker {
  const sec = config.security;
  const realm = sec.realms.find((r) => r.name === sec.memberAuthenticationRealm);
  return {
    clusterName: config.clusterName,
    identity: sec.enabled ? realm?.identity : undefined,
    verify(clusterName, username, password) {
      if (clusterName !== config.clusterName) {
        return { code: 'CONFLICT', reason: `its cluster name "${clusterName}" differs from this cluster's "${config.clusterName}"` };
      }
      if (!sec.enabled) return undefined;
      if (realm === undefined || realm.users.length === 0) {
        return { code: 'FORBIDDEN', reason: 'security is enabled but no member-authentication realm with users is configured here' };
      }
      if (username === undefined) return { code: 'FORBIDDEN', reason: 'it presented no identity (security is enabled)' };
      let ok = false;
      for (const u of realm.users) {
        if (sameText(u.username, username) && sameText(u.password, password ?? '')) ok = true;
      }
      return ok ? undefined : { code: 'FORBIDDEN', reason: `wrong member credentials for user "${username}"` };
    },
  };
}
