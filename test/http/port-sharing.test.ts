// One port, two protocols: the first byte decides. HTTP goes to REST; a member-protocol
// preamble is recognised and, while this release serves no member protocol, closed without
// disturbing HTTP clients on the same port.

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { MEMBER_PREAMBLE } from '../../src/protocol/preamble.js';
import { startMember } from '../support/member.js';

function connectAndSend(port: number, bytes: Uint8Array): Promise<{ received: Buffer; closedMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const s = net.connect({ port, host: '127.0.0.1' }, () => s.write(bytes));
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error('connection not closed within 3 s'));
    }, 3_000);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ received: Buffer.concat(chunks), closedMs: Date.now() - started });
    });
  });
}

describe('port sharing', () => {
  it('closes a member-protocol connection without an HTTP answer and keeps serving HTTP', async () => {
    const { port, base } = await startMember();
    const { received } = await connectAndSend(port, Buffer.concat([Buffer.from(MEMBER_PREAMBLE), Buffer.from('hello member')]));
    expect(received.length).toBe(0);
    const res = await fetch(`${base}/hazelcast/health/node-state`);
    expect(res.status).toBe(200);
    expect(await res.json()).toBe('ACTIVE');
  });

  it('hands a request split after its first byte to HTTP intact', async () => {
    const { port } = await startMember();
    const received = await new Promise<string>((resolve, reject) => {
      const s = net.connect({ port, host: '127.0.0.1' }, () => {
        s.write('G');
        setImmediate(() => s.write('ET /hazelcast/health/cluster-size HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      });
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString('latin1')));
      s.on('close', () => resolve(text));
      s.on('error', reject);
    });
    expect(received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(received.endsWith('\r\n\r\n1')).toBe(true);
  });
});
