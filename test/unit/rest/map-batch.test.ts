import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import { encodeValue, MAX_BATCH_ENTRIES, parseBatch, type BatchRequest } from '../../../src/rest/map-batch.js';
import { prng } from '../../support/prng.js';
import { expectGridError } from './helpers.js';

const parse = (doc: unknown): BatchRequest => parseBatch(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)));

describe('parseBatch: whole-body refusals (nothing runs)', () => {
  it.each([
    ['not JSON', '{"get": [', /not JSON/],
    ['empty body', '', /not JSON/],
    ['an array', '[]', /must be a JSON object/],
    ['null', 'null', /must be a JSON object/],
    ['a string', '"x"', /must be a JSON object/],
    ['unknown field', '{"gets": []}', /unknown field "gets"/],
    ['get not an array', '{"get": "k"}', /"get" must be an array/],
    ['put not an array', '{"put": {"key": "k"}}', /"put" must be an array/],
    ['bad encoding', '{"encoding": "hex"}', /"encoding" must be/],
  ])('%s -> BAD_REQUEST', (_what, body, message) => {
    expectGridError(() => parse(body), 'BAD_REQUEST', message);
  });

  it('more entries than the limit is a 413 that says the limit', () => {
    const keys = Array.from({ length: MAX_BATCH_ENTRIES + 1 }, (_, i) => `k${i}`);
    expectGridError(() => parse({ get: keys.slice(0, 10), delete: keys.slice(10) }), 'PAYLOAD_TOO_LARGE', new RegExp(`limit of ${MAX_BATCH_ENTRIES} entries`));
    expect(parse({ delete: keys.slice(1) }).delete).toHaveLength(MAX_BATCH_ENTRIES);
  });

  it('an empty object is an empty batch', () => {
    expect(parse({})).toEqual({ get: [], put: [], delete: [], encoding: 'auto' });
  });
});

describe('parseBatch: entries', () => {
  it('text and base64 values become the stored bytes; ttl in seconds', () => {
    const b = parse({
      put: [
        { key: 'a', value: 'héllo', contentType: 'text/plain; charset=utf-8' },
        { key: 'b', value: Buffer.from([0, 255, 128]).toString('base64'), encoding: 'base64', ttl: 30 },
        { key: 'c', value: '', ttl: 0 },
      ],
    });
    expect(b.put).toEqual([
      { key: 'a', value: Buffer.from('héllo', 'utf8').toString('latin1'), contentType: 'text/plain; charset=utf-8', ttlMs: -1 },
      { key: 'b', value: '\x00\xff\x80', contentType: undefined, ttlMs: 30_000 },
      { key: 'c', value: '', contentType: undefined, ttlMs: 0 },
    ]);
  });

  it.each([
    [{ key: 'k' }, /value must be a string/],
    [{ key: 'k', value: 1 }, /value must be a string/],
    [{ key: '', value: 'v' }, /key must not be empty/],
    [{ key: 7, value: 'v' }, /key must be a string/],
    [{ key: 'k', value: 'v', encoding: 'hex' }, /encoding must be/],
    [{ key: 'k', value: 'abc', encoding: 'base64' }, /not valid base64/],
    [{ key: 'k', value: 'ab$=', encoding: 'base64' }, /not valid base64/],
    [{ key: 'k', value: 'v', ttl: -1 }, /ttl must be/],
    [{ key: 'k', value: 'v', ttl: 1.5 }, /ttl must be/],
    [{ key: 'k', value: 'v', ttl: '30' }, /ttl must be/],
    [{ key: 'k', value: 'v', contentType: '' }, /contentType/],
    [{ key: 'k', value: 'v', contentType: 'a\nb' }, /contentType/],
    [{ key: 'k', value: 'v', extra: 1 }, /unknown field "extra"/],
    ['k', /a put must be an object/],
    [null, /a put must be an object/],
  ])('put %j is its own 400', (entry, message) => {
    const b = parse({ put: [entry, { key: 'ok', value: 'v' }] });
    expect(b.put[0]).toMatchObject({ invalid: expect.stringMatching(message) });
    expect(b.put[1]).toMatchObject({ key: 'ok' });
  });

  it('bad get and delete keys are their own 400s', () => {
    const b = parse({ get: ['a', 1, ''], delete: [null, 'b'] });
    expect(b.get).toEqual(['a', { invalid: 'key must be a string', key: undefined }, { invalid: 'key must not be empty', key: '' }]);
    expect(b.delete).toEqual([{ invalid: 'key must be a string', key: undefined }, 'b']);
  });

  it('a key written twice: the later writes are refused, reads of it are not', () => {
    const b = parse({ get: ['k', 'k'], put: [{ key: 'k', value: '1' }, { key: 'k', value: '2' }], delete: ['k'] });
    expect(b.get).toEqual(['k', 'k']);
    expect(b.put[1]).toMatchObject({ invalid: expect.stringMatching(/more than once/), key: 'k' });
    expect(b.delete[0]).toMatchObject({ invalid: expect.stringMatching(/more than once/), key: 'k' });
  });
});

describe('encodeValue', () => {
  it('auto: UTF-8 bytes as text, others base64; base64 always base64', () => {
    expect(encodeValue(Buffer.from('héllo').toString('latin1'), 'auto')).toEqual({ value: 'héllo', encoding: 'text' });
    expect(encodeValue('\xff\xfe', 'auto')).toEqual({ value: '//4=', encoding: 'base64' });
    expect(encodeValue('abc', 'base64')).toEqual({ value: 'YWJj', encoding: 'base64' });
  });
});

describe('parseBatch: random malformed bodies throw nothing but a GridError', () => {
  const pieces = ['{', '}', '[', ']', '"get"', '"put"', '"delete"', '"key"', '"value"', '"encoding"', '"base64"', '"ttl"', ':', ',', '1', '-1', 'null', 'true', '"k"', '"\\u0000"', '"__proto__"', '"constructor"', '1e400', '\xff', ' '];
  it('3000 bodies of random pieces and random bytes', () => {
    const rnd = prng(25);
    for (let i = 0; i < 3000; i++) {
      let body: Buffer;
      if (i % 2 === 0) {
        let s = '';
        const n = 1 + Math.floor(rnd() * 30);
        for (let j = 0; j < n; j++) s += pieces[Math.floor(rnd() * pieces.length)];
        body = Buffer.from(s, 'latin1');
      } else {
        body = Buffer.from(Array.from({ length: Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 256)));
      }
      try {
        const b = parseBatch(body);
        expect(b.get.length + b.put.length + b.delete.length).toBeLessThanOrEqual(MAX_BATCH_ENTRIES);
      } catch (e) {
        if (!(e instanceof GridError)) throw new Error(`body ${JSON.stringify(body.toString('latin1'))} threw ${String(e)}`);
      }
    }
  });

  it('random well-formed batches with random entry shapes never throw', () => {
    const rnd = prng(2525);
    const values: unknown[] = ['k', '', 0, -1, 1.5, null, true, [], {}, 'YWJj', '@@', { key: 'k' }, Infinity];
    const pick = (): unknown => values[Math.floor(rnd() * values.length)];
    for (let i = 0; i < 500; i++) {
      const put: Record<string, unknown> = {};
      for (const f of ['key', 'value', 'encoding', 'contentType', 'ttl']) if (rnd() < 0.7) put[f] = f === 'encoding' && rnd() < 0.5 ? 'base64' : pick();
      const b = parse({ get: [pick(), pick()], put: [put, pick()], delete: [pick()] });
      expect(b.get).toHaveLength(2);
      expect(b.put).toHaveLength(2);
    }
  });
});
