// WAN replication across a link that drops packets (issue 29): a cut of 10 s under write load,
// every packet silently dropped by the bridge between the data centres, and one with
// `tc netem loss 100%` where the kernel has it. After each heal the first entry written during the cut reaches
// the target within 5 s, everything acknowledged arrives, no key goes backwards, and the
// source's status says down (since when, why) during the cut and up after it (wan-cut.ts).
// The 30, 70 and 150 s cuts and the bridge port taken down are in link-cut.long.ts
// (`npm run test:wan-long`), which keeps `npm test` within its time.

import { describe, expect, it } from 'vitest';
import { cutLabAvailability, useCutEnv } from '../support/wan-cut.js';

const { unavailable, noNetem } = cutLabAvailability('WAN link-cut tests');

describe.skipIf(unavailable !== undefined)('a WAN link that drops packets, then heals', () => {
  const cut = useCutEnv('link-cut');

  for (const cutMs of [10_000]) {
    it(`every packet dropped for ${cutMs / 1000} s: resumes within 5 s of the heal, nothing lost, order kept, status down then up`, async () => {
      const r = await cut(cutMs, 'drop');
      expect(r.detectedMs, 'down within heartbeat-timeout-millis plus a probe interval and a poll').toBeLessThan(8_000);
      expect(r.firstEntryMs, 'first entry of the cut on the target after the heal').toBeLessThanOrEqual(5_000);
      expect(r.allReplicatedMs, 'all acknowledged writes on the target after the heal').toBeLessThanOrEqual(15_000);
    }, cutMs + 150_000);
  }

  it.skipIf(noNetem !== undefined)('tc netem loss 100% for 10 s: the same', async () => {
    const r = await cut(10_000, 'netem');
    expect(r.firstEntryMs).toBeLessThanOrEqual(5_000);
  }, 160_000);
});
