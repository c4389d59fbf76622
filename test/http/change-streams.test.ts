// Change streams (GET /grid/rest/maps/<map>/events, Server-Sent Events) through the real HTTP
// interface of an in-process member: events with ids and values, the prefix filter, the
// /hazelcast/ path kept as Hazelcast's, a reconnect with Last-Event-ID told plainly it cannot
// resume, and a consumer that stops reading cut off with a reason while the writers go on.

import { describe, expect, it } from 'vitest';
import { startMember } from '../support/member.js';
import { openStream } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

async function post(base: string, map: string, key: string, body: string | Buffer, contentType = 'text/plain'): Promise<number> {
  return (await fetch(`${base}/grid/rest/maps/${map}/${key}`, { method: 'POST', body, headers: { 'content-type': contentType } })).status;
}

describe('change streams over HTTP', () => {
  it('events arrive with ids, types and values; the prefix filters keys; /hazelcast/ keeps the entry path', async () => {
    const { base, port } = await startMember();
    const all = await openStream(port, '/grid/rest/maps/s1/events?values=true');
    const users = await openStream(port, '/grid/rest/maps/s1/events?prefix=user/');
    expect(all.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(all.text()).toContain('Content-Type: text/event-stream\r\n');
    expect(await post(base, 's1', 'user%2F1', 'alice')).toBe(200);
    expect(await post(base, 's1', 'order-1', Buffer.from([0, 1, 255]), 'application/octet-stream')).toBe(200);
    expect(await post(base, 's1', 'user%2F1', 'bob')).toBe(200);
    expect((await fetch(`${base}/grid/rest/maps/s1/order-1`, { method: 'DELETE' })).status).toBe(200);
    await waitFor('4 events', () => all.events().length >= 4 && users.events().length >= 2, 10_000);
    expect(all.events().map((e) => [e.event, e.data.key])).toEqual([
      ['added', 'user/1'],
      ['added', 'order-1'],
      ['updated', 'user/1'],
      ['removed', 'order-1'],
    ]);
    const [a, b, c] = all.events();
    expect(a!.data).toMatchObject({ value: 'alice', valueContentType: 'text/plain' });
    expect(b!.data).toMatchObject({ value: 'AAH/', valueEncoding: 'base64', valueContentType: 'application/octet-stream' });
    expect(c!.data).toMatchObject({ value: 'bob', oldValue: 'alice' });
    // ids: partition.epoch.sequence, the sequence growing per partition.
    expect(a!.id).toMatch(/^\d+\.\d+\.1$/);
    expect(c!.id).toMatch(/^\d+\.\d+\.2$/);
    expect(users.events().map((e) => [e.event, e.data.key, e.data.value])).toEqual([
      ['added', 'user/1', undefined],
      ['updated', 'user/1', undefined],
    ]);
    // The same path under /hazelcast/ is Hazelcast's: the entry whose key is "events".
    expect(await post(base, 's1', 'events', 'an entry')).toBe(200);
    const h = await fetch(`${base}/hazelcast/rest/maps/s1/events`);
    expect([h.status, await h.text()]).toEqual([200, 'an entry']);
    expect((await fetch(`${base}/grid/rest/maps/s1/events?bogus=1`)).status).toBe(400);
    all.socket.destroy();
    users.socket.destroy();
  });

  it('a reconnect with Last-Event-ID is told it cannot resume (event: reset), then gets live events', async () => {
    const { base, port } = await startMember();
    const first = await openStream(port, '/grid/rest/maps/s2/events');
    expect(await post(base, 's2', 'k', 'v1')).toBe(200);
    await waitFor('the first event', () => first.events().length >= 1, 10_000);
    const lastId = first.events()[0]!.id!;
    first.socket.destroy();
    const again = await openStream(port, '/grid/rest/maps/s2/events', { 'Last-Event-ID': lastId });
    expect(await post(base, 's2', 'k', 'v2')).toBe(200);
    await waitFor('reset and the next event', () => again.events().length >= 2, 10_000);
    expect(again.events().map((e) => e.event)).toEqual(['reset', 'updated']);
    expect(again.events()[0]!.data).toMatchObject({ lastEventId: lastId });
    again.socket.destroy();
  });

  it('a consumer that stops reading is cut off with a reason; the writers are never held back', async () => {
    const { base, port, logs } = await startMember();
    const slow = await openStream(port, '/grid/rest/maps/s3/events?values=true');
    // From here the consumer reads nothing: the kernel's buffers fill, then the member's.
    slow.socket.pause();
    const big = 'x'.repeat(64 * 1024);
    let written = 0;
    for (let i = 0; i < 400 && !logs.messages().some((m) => m.includes('change stream cut off')); i++) {
      expect(await post(base, 's3', `k${i}`, big)).toBe(200);
      written++;
    }
    expect(logs.messages().some((m) => m.includes('change stream cut off: slow consumer'))).toBe(true);
    // Reading again: the stream ends with the reason.
    const closed = new Promise<void>((r) => slow.socket.once('close', () => r()));
    slow.socket.resume();
    await closed;
    expect(slow.text()).toMatch(/event: cut\ndata: \{"reason":"slow consumer[^\n]*\n\n$/);
    expect(written).toBeLessThan(400);
    // The member goes on serving writes.
    expect(await post(base, 's3', 'after', 'v')).toBe(200);
  });

  it('a stream open while its member stops ends with the reason', async () => {
    const { member, port } = await startMember();
    const s = await openStream(port, '/grid/rest/maps/s4/events');
    const closed = new Promise<void>((r) => s.socket.once('close', () => r()));
    await member.stop();
    await closed;
    expect(s.text()).toMatch(/event: cut\ndata: \{"reason":"the member is shutting down"\}\n\n$/);
  });
});

