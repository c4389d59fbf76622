// Test harness: start real members on free loopback ports, talk to them over real sockets,
// always clean up.

import { LogCapture } from './logs.js';
import { freePort } from './ports.js';
import { afterEach } from 'vitest';
import { configFromObject } from '../../src/config/index.js';
import { Member } from '../../src/member/member.js';

export { LogCapture } from './logs.js';

const ALL_GROUPS = ['CLUSTER_READ', 'CLUSTER_WRITE', 'HEALTH_CHECK', 'PERSISTENCE', 'WAN', 'DATA', 'CP'];

/** The raw (YAML-shaped, inside `hazelcast:`) config of a REST member with the given groups. */
export function restConfig(groups: readonly string[] = ALL_GROUPS, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const network = (extra.network as Record<string, unknown> | undefined) ?? {};
  return {
    ...extra,
    network: {
      interfaces: { enabled: true, interfaces: ['127.0.0.1'] },
      ...network,
      'rest-api': {
        enabled: true,
        'endpoint-groups': Object.fromEntries(ALL_GROUPS.map((g) => [g, { enabled: groups.includes(g) }])),
        ...((network['rest-api'] as Record<string, unknown> | undefined) ?? {}),
      },
    },
  };
}

export interface StartedMember {
  readonly member: Member;
  readonly logs: LogCapture;
  /** `http://127.0.0.1:<restPort>` */
  readonly base: string;
  readonly port: number;
}

const started: Member[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((m) => m.stop()));
});

/**
 * Start a member in this process from a raw config (YAML shape). The port is a free one
 * unless the config sets network.port; the member is stopped after the test.
 */
export async function startMember(raw: Record<string, unknown> = restConfig(), env: Record<string, string> = {}): Promise<StartedMember> {
  const network = { ...((raw.network as Record<string, unknown> | undefined) ?? {}) };
  if (network.port === undefined) network.port = { port: await freePort(), 'auto-increment': true, 'port-count': 50 };
  const { config, warnings } = configFromObject({ ...raw, network }, env);
  const logs = new LogCapture();
  const member = await Member.start({ config, logDestination: logs, configWarnings: warnings });
  started.push(member);
  const port = member.restPort || member.memberPort;
  return { member, logs, base: `http://127.0.0.1:${port}`, port };
}
