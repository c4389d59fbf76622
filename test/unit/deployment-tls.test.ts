// The Kubernetes TLS overlay (deploy/kubernetes/tls): its configuration loads with ssl on and
// otherwise stays the base's, its probes ask over HTTPS, and the Secret is mounted where the
// configuration reads it.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.js';
import { repoPath, yamlDocuments } from '../support/deployment-files.js';

interface ConfigMap {
  readonly data: { readonly 'grid.yaml': string };
}
interface Probe {
  readonly httpGet: { readonly path: string; readonly scheme?: string };
}
interface Patch {
  readonly spec: {
    readonly template: {
      readonly spec: {
        readonly containers: readonly { name: string; env: { name: string; value: string }[]; startupProbe: Probe; livenessProbe: Probe; readinessProbe: Probe; volumeMounts: { name: string; mountPath: string }[] }[];
        readonly volumes: readonly { name: string; secret?: { secretName: string } }[];
      };
    };
  };
}

const tls = repoPath('deploy/kubernetes/tls');

describe('deploy/kubernetes/tls', () => {
  it('configures ssl with the Secret files and is the base configuration otherwise', () => {
    const [patch] = yamlDocuments(join(tls, 'configmap-patch.yaml')) as [ConfigMap];
    const [base] = yamlDocuments(repoPath('deploy/kubernetes/base/configmap.yaml')) as [ConfigMap];
    const withTls = parseConfigText(patch.data['grid.yaml'], 'yaml', 'tls/configmap-patch.yaml').config;
    const plain = parseConfigText(base.data['grid.yaml'], 'yaml', 'base/configmap.yaml').config;
    expect(withTls.network.ssl).toMatchObject({
      key: { kind: 'pem', keyFile: '/etc/grid/tls/tls.key', certChainFile: '/etc/grid/tls/tls.crt' },
      trust: { kind: 'pem', file: '/etc/grid/tls/ca.crt' },
      mutualAuthentication: 'OPTIONAL',
    });
    const strip = (c: typeof plain): unknown => JSON.parse(JSON.stringify({ ...c, network: { ...c.network, ssl: undefined }, source: '' }, (_k, v: unknown) => (v instanceof Set ? [...v] : v)));
    expect(strip(withTls)).toEqual(strip(plain));
  });

  it('probes over HTTPS and mounts grid-tls at /etc/grid/tls', () => {
    const [patch] = yamlDocuments(join(tls, 'statefulset-patch.yaml')) as [Patch];
    const c = patch.spec.template.spec.containers[0]!;
    for (const p of [c.startupProbe, c.livenessProbe, c.readinessProbe]) expect(p.httpGet.scheme).toBe('HTTPS');
    expect(c.volumeMounts).toContainEqual(expect.objectContaining({ name: 'tls', mountPath: '/etc/grid/tls' }));
    expect(patch.spec.template.spec.volumes).toContainEqual({ name: 'tls', secret: { secretName: 'grid-tls' } });
    expect(c.env).toContainEqual({ name: 'GRID_HEALTHCHECK_URL', value: 'https://127.0.0.1:5701/hazelcast/health/ready' });
  });
});
