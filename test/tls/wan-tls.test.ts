// WAN replication over TLS between real clusters (one member each, for the file): the
// publisher dials its targets over TLS, presents its certificate (the targets require one),
// and checks the target's certificate against the address dialled or the configured name
// (`serverName`): a target whose certificate names something else is refused, never served.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../support/cluster.js';
import { makeTestCerts, pemSsl, type TestCerts } from '../support/certs.js';
import { waitFor } from '../support/process.js';
import { configOf, endpointsOf, get, holdsFor, launch, publisherOn, put, replicatedMap, reserveCluster, waitForEntries, wanReplication } from '../support/wan.js';

let certs: TestCerts;
const clusters: Cluster[] = [];

beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.destroy()));
  certs?.remove();
});

describe('WAN over TLS', () => {
  it('replicates to a target whose certificate holds the configured name, and refuses one that does not', async () => {
    const tls = { ca: certs.caPem, cert: certs.memberPem, key: certs.memberKey };
    // B's certificate names 127.0.0.1 and localhost; B2's only wan.example.
    const b = await reserveCluster('B', 1, () => ({ network: { ssl: pemSsl(certs.memberKey, certs.memberPem, certs.caPem, { mutualAuthentication: 'REQUIRED' }) } }), { tls });
    const b2 = await reserveCluster('B2', 1, () => ({ network: { ssl: pemSsl(certs.namedKey, certs.namedPem, certs.caPem, { mutualAuthentication: 'REQUIRED' }) } }), { tls });
    // A's WAN dials expect the name wan.example (its member dials check only the chain).
    const a = await reserveCluster('A', 1, () =>
      configOf(
        { network: { ssl: pemSsl(certs.memberKey, certs.memberPem, certs.caPem, { mutualAuthentication: 'REQUIRED', serverName: 'wan.example' }) } },
        wanReplication('to-named', { clusterName: 'B2', publisherId: 'b2', endpoints: endpointsOf(b2) }),
        wanReplication('to-ip', { clusterName: 'B', publisherId: 'b', endpoints: endpointsOf(b) }),
        replicatedMap('named*', 'to-named'),
        replicatedMap('ip*', 'to-ip'),
      ), { tls });
    clusters.push(a, b, b2);
    await Promise.all([launch(a, 1), launch(b, 1), launch(b2, 1)]);

    const expected = new Map<string, string>();
    for (let n = 0; n < 20; n++) {
      expected.set(`k${n}`, `v${n}`);
      await put(a, 0, 'named', `k${n}`, `v${n}`);
      await put(a, 0, 'ip', `k${n}`, `v${n}`);
    }
    await waitForEntries(b2, 0, 'named', expected);
    expect((await publisherOn(a, 0, 'to-named', 'b2')).endpoints.map((e) => e.status)).toEqual(['up']);

    // B's certificate does not name wan.example: A refuses it, so nothing reaches B.
    const refused = await waitFor(
      'the endpoint to B to be down for its certificate',
      async () => (await publisherOn(a, 0, 'to-ip', 'b')).endpoints.find((e) => e.status === 'down' && /wan\.example|altnames/i.test(e.reason ?? '')),
      15_000,
    );
    expect(refused.reason).toMatch(/Hostname\/IP does not match certificate's altnames/);
    await holdsFor('the publisher to B never delivers', 2_000, async () => {
      const p = await publisherOn(a, 0, 'to-ip', 'b');
      if (p.endpoints.some((e) => e.status === 'up')) return `its endpoint is up: ${JSON.stringify(p.endpoints)}`;
      const r = await get(b, 0, 'ip', 'k0');
      return r.status === 204 ? undefined : `ip/k0 reached B: ${r.body}`;
    });
  }, 90_000);
});
