import { describe, expect, it } from 'vitest';
import { detachedCopy } from '../../../src/core/strings.js';

describe('detachedCopy', () => {
  it('returns an equal string for every length and script', () => {
    const url = '/hazelcast/rest/maps/orders/customer-order-2026-11-22-000123';
    for (let len = 0; len <= 40; len++) expect(detachedCopy(url.slice(url.length - len))).toBe(url.slice(url.length - len));
    for (const s of ['ключ-номер-один-два', '日本語のキーはここにあります', 'emoji 🙂🙂🙂 key with pairs', 'a+b%2Fc and spaces here']) {
      expect(detachedCopy(s)).toBe(s);
    }
  });
});
