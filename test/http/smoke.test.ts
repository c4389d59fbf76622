import { describe, expect, it } from 'vitest';
import { startMember } from '../support/member.js';

describe('member smoke', () => {
  it('stores and reads a map entry through REST', async () => {
    const { base } = await startMember();
    const put = await fetch(`${base}/hazelcast/rest/maps/m/k1`, { method: 'POST', body: 'v1', headers: { 'content-type': 'text/plain' } });
    expect(put.status).toBe(200);
    const get = await fetch(`${base}/grid/rest/maps/m/k1`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('text/plain');
    expect(await get.text()).toBe('v1');
  });
});
