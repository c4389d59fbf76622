// One port, two protocols: the first byte decides. HTTP goes to REST; a member-protocol
// preamble is recognised and, while this release serves no member protocol, closed without
// disturbing HTTP clients on the same port.

import { describe, expect, it } from 'vitest';
import { MEMBER_PREAMBLE } from '../../src/protocol/preamble.js';
import { RawConnection, sendAndAwaitClose } from '../support/http.js';
import { startMember } from '../support/member.js';

describe('port sharing', () => {
  it('closes a member-protocol connection without an HTTP answer and keeps serving HTTP', async () => {
    const { port, base } = await startMember();
    const received = await sendAndAwaitClose(port, Buffer.concat([Buffer.from(MEMBER_PREAMBLE), Buffer.from('hello member')]), 3_000);
    expect(received.length).toBe(0);
    const res = await fetch(`${base}/hazelcast/health/node-state`);
    expect(res.status).toBe(200);
    expect(await res.json()).toBe('ACTIVE');
  });

  it('hands a request split after its first byte to HTTP intact', async () => {
    const { port } = await startMember();
    const c = await RawConnection.connect(port);
    let received: string;
    try {
      await c.write('G');
      // The rest in a later write, so that the first byte can arrive on its own.
      await new Promise<void>((r) => setImmediate(r));
      await c.write('ET /hazelcast/health/cluster-size HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await c.waitForEnd();
      received = c.pending.toString('latin1');
    } finally {
      await c.destroy();
    }
    expect(received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(received.endsWith('\r\n\r\n1')).toBe(true);
  });
});
