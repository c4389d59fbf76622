import { describe, expect, it } from 'vitest';
import {
  decodeSegment,
  headerSafe,
  parseMapPath,
  parseParams,
  parseQueuePath,
  parseTimeoutSeconds,
  PREFIXES,
  stripPrefix,
} from '../../../src/rest/paths.js';
import { expectGridError } from './helpers.js';

describe('stripPrefix', () => {
  it('serves both prefixes the same', () => {
    expect(PREFIXES).toEqual(['/grid/', '/hazelcast/']);
    for (const p of ['/grid/', '/hazelcast/']) {
      expect(stripPrefix(`${p}rest/maps/m/k`)).toBe('rest/maps/m/k');
      expect(stripPrefix(`${p}health`)).toBe('health');
      expect(stripPrefix(p)).toBe('');
    }
  });

  it('removes the query string', () => {
    expect(stripPrefix('/grid/rest/maps/m/k?x=1&y=2')).toBe('rest/maps/m/k');
    expect(stripPrefix('/hazelcast/health?')).toBe('health');
    expect(stripPrefix('/grid/?a=b')).toBe('');
    // Only the first `?` starts the query.
    expect(stripPrefix('/grid/rest/maps/m/k?a?b')).toBe('rest/maps/m/k');
    // A `?` in the query does not make an unprefixed path prefixed.
    expect(stripPrefix('/other?/grid/x')).toBeUndefined();
  });

  it('keeps the path encoded (an escaped `?` is part of the key)', () => {
    expect(stripPrefix('/grid/rest/maps/m/a%3Fb%2Fc')).toBe('rest/maps/m/a%3Fb%2Fc');
  });

  it('serves /metrics without a prefix (Prometheus\'s default metrics_path), and no other path', () => {
    expect(stripPrefix('/metrics')).toBe('metrics');
    expect(stripPrefix('/metrics/')).toBe('metrics/');
    expect(stripPrefix('/metrics?name[]=x')).toBe('metrics');
    for (const url of ['/metricsx', '/metrics/x', '/Metrics', '/rest/metrics', '/health']) expect(stripPrefix(url), url).toBeUndefined();
  });

  it('returns undefined for other paths', () => {
    for (const url of ['/', '', '/grid', '/hazelcast', '/gridx/rest', '/hazelcastx/rest', '/rest/maps/m/k', 'grid/rest', '/GRID/rest', '/x/grid/rest']) {
      expect(stripPrefix(url), url).toBeUndefined();
    }
    expect(stripPrefix('/grid?/x')).toBeUndefined();
  });
});

describe('decodeSegment', () => {
  it('returns text without escapes unchanged', () => {
    expect(decodeSegment('plain', 'key')).toBe('plain');
    expect(decodeSegment('', 'key')).toBe('');
  });

  it('decodes valid escapes as UTF-8', () => {
    expect(decodeSegment('a%20b', 'key')).toBe('a b');
    expect(decodeSegment('%C3%BC', 'key')).toBe('ü');
    expect(decodeSegment('%E6%97%A5%E6%9C%AC', 'key')).toBe('日本');
    expect(decodeSegment('%F0%9F%99%82', 'key')).toBe('🙂');
    expect(decodeSegment('%25', 'key')).toBe('%');
    expect(decodeSegment('%2f%2F', 'key')).toBe('//');
    expect(decodeSegment('%26%3D%3F%23', 'key')).toBe('&=?#');
  });

  it('%2F is a slash inside the segment; `+` stays `+`', () => {
    expect(decodeSegment('a%2Fb', 'key')).toBe('a/b');
    expect(decodeSegment('a+b', 'key')).toBe('a+b');
    expect(decodeSegment('a+b%20c', 'key')).toBe('a+b c');
    expect(decodeSegment('%2B', 'key')).toBe('+');
  });

  it.each(['%ZZ', '%', '%2', 'a%', '%E0%A4', '%C3', '%FF', '%C3%28', '%ED%A0%80'])('malformed %s -> BAD_REQUEST', (raw) => {
    expectGridError(() => decodeSegment(raw, 'map name'), 'BAD_REQUEST', 'malformed percent-escape in map name');
  });
});

describe('parseMapPath', () => {
  it('name only', () => {
    expect(parseMapPath('m')).toEqual({ mapName: 'm', key: undefined });
    expect(parseMapPath('orders')).toEqual({ mapName: 'orders', key: undefined });
  });

  it('name and key', () => {
    expect(parseMapPath('m/k')).toEqual({ mapName: 'm', key: 'k' });
  });

  it('a key may contain `/`, raw or encoded', () => {
    expect(parseMapPath('m/a/b/c')).toEqual({ mapName: 'm', key: 'a/b/c' });
    expect(parseMapPath('m/a%2Fb')).toEqual({ mapName: 'm', key: 'a/b' });
    expect(parseMapPath('m/%2F')).toEqual({ mapName: 'm', key: '/' });
  });

  it('removes one trailing `/` from the key, once', () => {
    expect(parseMapPath('m/k/')).toEqual({ mapName: 'm', key: 'k' });
    expect(parseMapPath('m/k//')).toEqual({ mapName: 'm', key: 'k/' });
    expect(parseMapPath('m/a/b/')).toEqual({ mapName: 'm', key: 'a/b' });
    // An encoded trailing slash is part of the key, not the path.
    expect(parseMapPath('m/k%2F')).toEqual({ mapName: 'm', key: 'k/' });
  });

  it('an empty key is a 400', () => {
    expectGridError(() => parseMapPath('m/'), 'BAD_REQUEST', 'missing key (an empty key is not a key)');
    expectGridError(() => parseMapPath('m//'), 'BAD_REQUEST', /missing key/);
  });

  it('a missing name is a 400', () => {
    expectGridError(() => parseMapPath('/k'), 'BAD_REQUEST', 'missing map name');
    expectGridError(() => parseMapPath(''), 'BAD_REQUEST', 'missing map name');
    expectGridError(() => parseMapPath('/'), 'BAD_REQUEST', 'missing map name');
  });

  it('decodes name and key separately, after splitting on the raw path', () => {
    expect(parseMapPath('my%20map/k%20ey')).toEqual({ mapName: 'my map', key: 'k ey' });
    expect(parseMapPath('a%2Fb/k')).toEqual({ mapName: 'a/b', key: 'k' });
    expect(parseMapPath('a%2Fb')).toEqual({ mapName: 'a/b', key: undefined });
    expect(parseMapPath('%E6%97%A5/%F0%9F%99%82')).toEqual({ mapName: '日', key: '🙂' });
    expect(parseMapPath('m+1/k+2')).toEqual({ mapName: 'm+1', key: 'k+2' });
  });

  it('malformed escapes are 400 and say where', () => {
    expectGridError(() => parseMapPath('m%ZZ/k'), 'BAD_REQUEST', 'malformed percent-escape in map name');
    expectGridError(() => parseMapPath('m/k%E0%A4'), 'BAD_REQUEST', 'malformed percent-escape in key');
  });
});

describe('parseQueuePath', () => {
  it('name only, with or without a trailing slash', () => {
    expect(parseQueuePath('q')).toEqual({ queueName: 'q', rawArg: undefined });
    expect(parseQueuePath('q/')).toEqual({ queueName: 'q', rawArg: undefined });
  });

  it('name and argument, argument still encoded', () => {
    expect(parseQueuePath('q/5')).toEqual({ queueName: 'q', rawArg: '5' });
    expect(parseQueuePath('q/5/')).toEqual({ queueName: 'q', rawArg: '5' });
    expect(parseQueuePath('q/size')).toEqual({ queueName: 'q', rawArg: 'size' });
    expect(parseQueuePath('q/a%20b')).toEqual({ queueName: 'q', rawArg: 'a%20b' });
    expect(parseQueuePath('q/a/b')).toEqual({ queueName: 'q', rawArg: 'a/b' });
  });

  it('decodes the name', () => {
    expect(parseQueuePath('my%20queue/5')).toEqual({ queueName: 'my queue', rawArg: '5' });
    expect(parseQueuePath('a%2Fb/5')).toEqual({ queueName: 'a/b', rawArg: '5' });
  });

  it('a missing name is a 400', () => {
    expectGridError(() => parseQueuePath(''), 'BAD_REQUEST', 'missing queue name');
    expectGridError(() => parseQueuePath('/'), 'BAD_REQUEST', 'missing queue name');
    expectGridError(() => parseQueuePath('/5'), 'BAD_REQUEST', 'missing queue name');
  });

  it('a malformed name is a 400', () => {
    expectGridError(() => parseQueuePath('q%ZZ/5'), 'BAD_REQUEST', 'malformed percent-escape in queue name');
  });
});

describe('parseTimeoutSeconds', () => {
  it('accepts non-negative whole numbers', () => {
    expect(parseTimeoutSeconds('0')).toBe(0);
    expect(parseTimeoutSeconds('30')).toBe(30);
    expect(parseTimeoutSeconds('007')).toBe(7);
    expect(parseTimeoutSeconds('%33%30')).toBe(30); // percent-decoded first
  });

  it.each(['-1', 'abc', '1.5', '', ' 5', '5 ', '+5', '1e3', '0x10', '1_000', '９', '9999999999999'])('rejects "%s" with 400', (raw) => {
    expectGridError(() => parseTimeoutSeconds(raw), 'BAD_REQUEST', /^poll timeout must be a non-negative whole number of seconds, got "/);
  });

  it('rejects malformed escapes with 400', () => {
    expectGridError(() => parseTimeoutSeconds('%ZZ'), 'BAD_REQUEST', 'malformed percent-escape in poll timeout');
  });

  it('quotes what it got', () => {
    expectGridError(() => parseTimeoutSeconds('-1'), 'BAD_REQUEST', 'poll timeout must be a non-negative whole number of seconds, got "-1"');
  });
});

describe('parseParams', () => {
  it('exactly the expected number', () => {
    expect(parseParams('dev&pw', 2)).toEqual(['dev', 'pw']);
    expect(parseParams('dev&pw&FROZEN', 3)).toEqual(['dev', 'pw', 'FROZEN']);
    expect(parseParams('only', 1)).toEqual(['only']);
  });

  it('fewer than expected is a 400 naming both counts', () => {
    expectGridError(() => parseParams('dev&pw', 3), 'BAD_REQUEST', 'expected 3 parameters separated by "&", got 2');
    expectGridError(() => parseParams('dev', 2), 'BAD_REQUEST', 'expected 2 parameters separated by "&", got 1');
    expectGridError(() => parseParams('', 2), 'BAD_REQUEST', 'expected 2 parameters separated by "&", got 1');
    expectGridError(() => parseParams('a&b', 4), 'BAD_REQUEST', 'expected 4 parameters separated by "&", got 2');
  });

  it('text beyond the last expected parameter belongs to the last one', () => {
    expect(parseParams('dev&pw&a&b&c', 3)).toEqual(['dev', 'pw', 'a&b&c']);
    expect(parseParams('dev&pw&', 2)).toEqual(['dev', 'pw&']);
    expect(parseParams('a&b', 1)).toEqual(['a&b']);
  });

  it('empty positions are empty strings', () => {
    expect(parseParams('&&', 3)).toEqual(['', '', '']);
    expect(parseParams('dev&&x', 3)).toEqual(['dev', '', 'x']);
    expect(parseParams('&', 2)).toEqual(['', '']);
    expect(parseParams('', 1)).toEqual(['']);
  });

  it('percent-decodes each parameter after splitting', () => {
    expect(parseParams('a%26b&p%3Dw&%C3%BC', 3)).toEqual(['a&b', 'p=w', 'ü']);
    expect(parseParams('dev&a+b', 2)).toEqual(['dev', 'a+b']);
    expect(parseParams('dev&pw&x%26y&z', 3)).toEqual(['dev', 'pw', 'x&y&z']);
  });

  it('a malformed escape is a 400 naming the parameter', () => {
    expectGridError(() => parseParams('%ZZ&b', 2), 'BAD_REQUEST', 'malformed percent-escape in parameter 1');
    expectGridError(() => parseParams('a&b&%E0%A4', 3), 'BAD_REQUEST', 'malformed percent-escape in parameter 3');
  });

  it('with min < expected, missing optional parameters are padded with ""', () => {
    expect(parseParams('dev&pw', 3, 2)).toEqual(['dev', 'pw', '']);
    expect(parseParams('dev&pw&x', 3, 2)).toEqual(['dev', 'pw', 'x']);
    expect(parseParams('dev&pw&x&y', 3, 2)).toEqual(['dev', 'pw', 'x&y']);
    expect(parseParams('dev', 4, 1)).toEqual(['dev', '', '', '']);
    expectGridError(() => parseParams('dev', 3, 2), 'BAD_REQUEST', 'expected 2 parameters separated by "&", got 1');
  });

  it('always returns `expected` entries', () => {
    for (let expected = 1; expected <= 6; expected++) {
      for (let amps = expected - 1; amps <= expected + 2; amps++) {
        const body = Array.from({ length: amps + 1 }, (_, i) => `p${i}`).join('&');
        expect(parseParams(body, expected)).toHaveLength(expected);
      }
    }
  });
});

describe('headerSafe', () => {
  it('keeps printable ASCII', () => {
    expect(headerSafe('queue "orders" is full (max-size 1000)')).toBe('queue "orders" is full (max-size 1000)');
    expect(headerSafe('')).toBe('');
    expect(headerSafe(' ~')).toBe(' ~');
  });

  it('escapes control characters, DEL and non-ASCII', () => {
    expect(headerSafe('a\r\nb')).toBe('a\\u000d\\u000ab');
    expect(headerSafe('\u0000\t\u001f\u007f')).toBe('\\u0000\\u0009\\u001f\\u007f');
    expect(headerSafe('ü日')).toBe('\\u00fc\\u65e5');
    expect(headerSafe('🙂')).toBe('\\ud83d\\ude42');
  });

  it('is always a valid header value: printable ASCII only', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c += 7) all += String.fromCharCode(c);
    const out = headerSafe(all, 100_000);
    expect(out).toMatch(/^[\x20-\x7e]*$/);
  });

  it('truncates long text and marks it', () => {
    expect(headerSafe('x'.repeat(400))).toBe(`${'x'.repeat(300)}...`);
    expect(headerSafe('x'.repeat(301))).toBe(`${'x'.repeat(300)}...`);
    expect(headerSafe('abcdef', 3)).toBe('abc...');
    expect(headerSafe('\n'.repeat(100), 12)).toBe('\\u000a\\u000a...');
    // An escape that runs past the limit is cut and marked.
    expect(headerSafe('ab\n', 5)).toBe('ab\\u0...');
  });

  it('does not mark text that fits exactly', () => {
    expect(headerSafe('x'.repeat(300))).toBe('x'.repeat(300));
    expect(headerSafe('x'.repeat(299))).toBe('x'.repeat(299));
    expect(headerSafe('abc', 3)).toBe('abc');
    expect(headerSafe('\n', 6)).toBe('\\u000a');
  });

  it('never exceeds maxLength plus the marker', () => {
    for (let n = 0; n < 50; n++) {
      const out = headerSafe('é'.repeat(n) + 'x'.repeat(n), 20);
      expect(out.length).toBeLessThanOrEqual(23);
    }
  });
});
