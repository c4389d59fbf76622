// The `ssl` elements of the network sections, read through ../ssl.ts (Hazelcast's property
// names; pure): `network.ssl`, each advanced-network endpoint's, and the first enabled
// `wan-endpoint-config` ssl (what WAN publishers dial with).

import type { Problems } from '../problems.js';
import { readSsl, type SslConfig } from '../ssl.js';
import type { Section } from './section.js';
import { IGNORED_ENDPOINT } from './unused-elements.js';

/** The `ssl` child of `s` (network or an endpoint config); undefined when absent or off. */
export function readSslOf(problems: Problems, s: Section): SslConfig | undefined {
  return readSsl(problems, s.at('ssl'), s.raw('ssl'));
}

/** `wan-endpoint-config` entries (keyed by name): the ssl WAN publishers dial with (the first enabled one). */
export function readWanEndpointSsl(problems: Problems, s: Section): SslConfig | undefined {
  let found: SslConfig | undefined;
  for (const name of Object.keys(s.obj)) {
    const e = s.child(name);
    const ssl = readSslOf(problems, e);
    if (ssl !== undefined && found !== undefined) problems.warn(e.at('ssl'), `only the first wan-endpoint-config's ssl is used (${found.path})`);
    found ??= ssl;
    e.finish(IGNORED_ENDPOINT, { silent: ['name'] });
  }
  return found;
}
