// Whether a ClientAuthentication is accepted (pure): the serialization version, the cluster
// name, and with security on the username and password against the client-authentication
// realm (the same users REST credentials are checked against). Security off ignores the
// credentials, as Hazelcast's open-source member does. The reason never holds the password.

import type { CredentialChecker } from '../security/credentials.js';
import { AuthStatus, SERIALIZATION_VERSION, type AuthRequest, type AuthStatusCode } from './auth-codec.js';

export type ClientAuthDecision =
  | { readonly status: typeof AuthStatus.AUTHENTICATED }
  | { readonly status: Exclude<AuthStatusCode, typeof AuthStatus.AUTHENTICATED>; readonly reason: string };

export function decideClientAuth(
  req: Pick<AuthRequest, 'serializationVersion' | 'clusterName' | 'username' | 'password'>,
  clusterName: string,
  credentials: CredentialChecker,
): ClientAuthDecision {
  if (req.serializationVersion !== SERIALIZATION_VERSION) {
    return { status: AuthStatus.SERIALIZATION_VERSION_MISMATCH, reason: `serialization version ${req.serializationVersion} (only ${SERIALIZATION_VERSION})` };
  }
  // Checked before the credentials, with security on too: a client of another cluster learns nothing about this one's users.
  if (req.clusterName !== clusterName) {
    return { status: AuthStatus.CREDENTIALS_FAILED, reason: `cluster name "${req.clusterName}" is not this cluster's` };
  }
  if (!credentials.securityEnabled) return { status: AuthStatus.AUTHENTICATED };
  if (req.username === null) {
    return { status: AuthStatus.CREDENTIALS_FAILED, reason: 'no username and password (security is enabled: set the client\'s security.usernamePassword)' };
  }
  if (credentials.userCount === 0) {
    return { status: AuthStatus.CREDENTIALS_FAILED, reason: `user "${req.username}": the client-authentication realm has no users, so every client is refused` };
  }
  // Always checked (even with a null password) so a refusal takes the same time whichever part was wrong.
  if (!credentials.check(req.username, req.password ?? '')) {
    return { status: AuthStatus.CREDENTIALS_FAILED, reason: `wrong username or password for user "${req.username}"` };
  }
  return { status: AuthStatus.AUTHENTICATED };
}
