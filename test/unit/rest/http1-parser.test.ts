// Grid's HTTP/1.1 request parser on byte vectors: parseHead's accepted shapes, every 'bail'
// (the request is node:http's to answer) and every 'incomplete'.

import { describe, expect, it } from 'vitest';
import { FAST_HEAD_LIMIT, parseHead, type HeadResult, type RequestHead } from '../../../src/rest/http1-parser.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

function head(text: string, limit?: number): HeadResult {
  const buf = b(text);
  return parseHead(buf, 0, buf.length, limit);
}

function accepted(text: string, limit?: number): RequestHead {
  const r = head(text, limit);
  if (typeof r === 'string') throw new Error(`expected a head for ${JSON.stringify(text)}, got ${r}`);
  return r;
}

describe('parseHead: accepted shapes', () => {
  it('takes GET/HEAD/POST/PUT/DELETE in HTTP/1.1 and 1.0, the url as sent, headBytes up to the blank line', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
      for (const version of ['1.1', '1.0']) {
        const text = `${method} /hazelcast/rest/maps/m/k%2F?x=1&y=%zz HTTP/${version}\r\nHost: a\r\n\r\n`;
        const h = accepted(`${text}NEXT`);
        expect(h).toEqual({
          method,
          url: '/hazelcast/rest/maps/m/k%2F?x=1&y=%zz',
          httpVersion: version,
          rawHeaders: ['Host', 'a'],
          contentLength: -1,
          chunked: false,
          keepAlive: version === '1.1',
          expectContinue: false,
          headBytes: text.length,
        });
      }
    }
  });

  it('parses at an offset and stops at `end`', () => {
    const buf = b('xxGET / HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n');
    const h = parseHead(buf, 2, buf.length);
    expect(h).toMatchObject({ url: '/', headBytes: 18 });
    const second = parseHead(buf, 20, buf.length);
    expect(second).toMatchObject({ url: '/b', headBytes: 19 });
    expect(parseHead(buf, 20, buf.length - 1)).toBe('incomplete');
  });

  it('takes a request with no headers at all', () => {
    expect(accepted('GET / HTTP/1.1\r\n\r\n')).toMatchObject({ rawHeaders: [], keepAlive: true, headBytes: 18 });
  });

  it('keep-alive: 1.1 unless Connection: close, 1.0 only with Connection: keep-alive (any case)', () => {
    const cases: [string, string | undefined, boolean][] = [
      ['1.1', undefined, true],
      ['1.1', 'close', false],
      ['1.1', 'CLOSE', false],
      ['1.1', 'keep-alive', true],
      ['1.1', 'Keep-Alive', true],
      ['1.0', undefined, false],
      ['1.0', 'close', false],
      ['1.0', 'keep-alive', true],
      ['1.0', 'KEEP-ALIVE', true],
    ];
    for (const [version, connection, keepAlive] of cases) {
      const text = `GET / HTTP/${version}\r\n${connection === undefined ? '' : `connection: ${connection}\r\n`}\r\n`;
      expect(accepted(text).keepAlive, text).toBe(keepAlive);
    }
  });

  it('Content-Length: digits, leading zeros, zero; any case of the name', () => {
    expect(accepted('POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello').contentLength).toBe(5);
    expect(accepted('POST / HTTP/1.1\r\ncontent-length: 0\r\n\r\n').contentLength).toBe(0);
    expect(accepted('POST / HTTP/1.1\r\nCONTENT-LENGTH: 007\r\n\r\n').contentLength).toBe(7);
    expect(accepted('POST / HTTP/1.1\r\nContent-Length: 999999999999999\r\n\r\n').contentLength).toBe(999_999_999_999_999);
  });

  it('Transfer-Encoding: chunked (any case) in HTTP/1.1', () => {
    const h = accepted('POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n');
    expect(h).toMatchObject({ chunked: true, contentLength: -1 });
  });

  it('Expect: 100-continue (any case)', () => {
    expect(accepted('POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n')).toMatchObject({ expectContinue: true, contentLength: 1 });
  });

  it('trims optional whitespace (SP and HTAB) around values, keeps inner whitespace, and keeps names and values as sent', () => {
    const h = accepted('GET / HTTP/1.1\r\nX-One:\t  a b\t \r\nx-TWO:b\r\nEmpty:\r\nBlank:  \t\r\nContent-Length:  3 \r\n\r\n');
    expect(h.rawHeaders).toEqual(['X-One', 'a b', 'x-TWO', 'b', 'Empty', '', 'Blank', '', 'Content-Length', '3']);
    expect(h.contentLength).toBe(3);
  });

  it('takes obs-text (0x80-0xff) in values, as latin1', () => {
    const h = accepted('GET / HTTP/1.1\r\nX-Text: caf\u00e9 \u00ff\u0080\r\n\r\n');
    expect(h.rawHeaders).toEqual(['X-Text', 'caf\u00e9 \u00ff\u0080']);
  });

  it('takes every token character in names and visible ASCII in the target', () => {
    const name = "!#$%&'*+-.^_`|~09AZaz";
    expect(accepted(`GET /!"$%&'()*+,-./09:;<=>?@AZ[\\]^_\`az{|}~ HTTP/1.1\r\n${name}: v\r\n\r\n`).rawHeaders).toEqual([name, 'v']);
  });

  it('takes 128 header lines', () => {
    const lines = Array.from({ length: 128 }, (_, i) => `X-${i}: ${i}\r\n`).join('');
    expect(accepted(`GET / HTTP/1.1\r\n${lines}\r\n`).rawHeaders).toHaveLength(256);
  });

  it('takes a head of exactly the limit and the default limit is FAST_HEAD_LIMIT', () => {
    const base = 'GET / HTTP/1.1\r\nX: \r\n\r\n';
    const text = base.replace('X: ', `X: ${'a'.repeat(100 - base.length)}`);
    expect(text.length).toBe(100);
    expect(accepted(text, 100).headBytes).toBe(100);
    expect(head(text, 99)).toBe('bail');
    const big = base.replace('X: ', `X: ${'a'.repeat(FAST_HEAD_LIMIT - base.length)}`);
    expect(accepted(big).headBytes).toBe(FAST_HEAD_LIMIT);
    expect(head(big.replace('X: ', 'X: a'))).toBe('bail');
  });
});

describe('parseHead: incomplete heads', () => {
  const full = 'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n';

  it('every proper prefix of a head is incomplete, including those ending in \\r, \\r\\n and \\r\\n\\r', () => {
    for (let n = 0; n < full.length; n++) expect(head(full.slice(0, n)), JSON.stringify(full.slice(0, n))).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r')).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r\n')).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r\n\r')).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r\nHost: x\r')).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r\nHost: x\r\n')).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r\nHost: x\r\n\r')).toBe('incomplete');
    expect(head('GET / HTTP/1.1\r\nHost: x\r\nX')).toBe('incomplete');
  });

  it('an incomplete head at the limit bails (node:http applies max-header-bytes)', () => {
    expect(head(`GET /${'a'.repeat(95)}`, 100)).toBe('bail');
    expect(head(`GET /${'a'.repeat(94)}`, 100)).toBe('incomplete');
    expect(head(`GET /${'a'.repeat(FAST_HEAD_LIMIT)}`)).toBe('bail');
  });
});

describe('parseHead: bails (node:http answers these)', () => {
  const bails: [string, string][] = [
    ['absolute form', 'GET http://localhost:5701/hazelcast/health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['asterisk form', 'OPTIONS * HTTP/1.1\r\n\r\n'],
    ['empty target', 'GET  HTTP/1.1\r\n\r\n'],
    ['OPTIONS', 'OPTIONS / HTTP/1.1\r\n\r\n'],
    ['PATCH', 'PATCH / HTTP/1.1\r\n\r\n'],
    ['CONNECT', 'CONNECT a:1 HTTP/1.1\r\n\r\n'],
    ['lower-case method', 'get / HTTP/1.1\r\n\r\n'],
    ['no method', ' / HTTP/1.1\r\n\r\n'],
    ['HTTP/2.0', 'GET / HTTP/2.0\r\n\r\n'],
    ['HTTP/0.9', 'GET / HTTP/0.9\r\n\r\n'],
    ['lower-case version', 'GET / http/1.1\r\n\r\n'],
    ['no version', 'GET /\r\n\r\n'],
    ['space after the version', 'GET / HTTP/1.1 \r\n\r\n'],
    ['two spaces', 'GET  / HTTP/1.1\r\n\r\n'],
    ['space in target', 'GET /a b HTTP/1.1\r\n\r\n'],
    ['CTL in target', 'GET /a\x01 HTTP/1.1\r\n\r\n'],
    ['obs-text in target', 'GET /caf\u00e9 HTTP/1.1\r\n\r\n'],
    ['bare LF ending the request line', 'GET / HTTP/1.1\nHost: x\r\n\r\n'],
    ['bare LF ending a header', 'GET / HTTP/1.1\r\nHost: x\n\r\n'],
    ['bare LF ending the head', 'GET / HTTP/1.1\r\nHost: x\r\n\n'],
    ['LF first', '\nGET / HTTP/1.1\r\n\r\n'],
    ['CR not followed by LF after a line', 'GET / HTTP/1.1\r\n\rX\r\n\r\n'],
    ['obs-fold', 'GET / HTTP/1.1\r\nX-Fold: a\r\n b\r\n\r\n'],
    ['leading whitespace before a name', 'GET / HTTP/1.1\r\n\tX: a\r\n\r\n'],
    ['CTL in a value', 'GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n'],
    ['NUL in a value', 'GET / HTTP/1.1\r\nX: \x00\r\n\r\n'],
    ['DEL in a value', 'GET / HTTP/1.1\r\nX: a\x7f\r\n\r\n'],
    ['bare CR in a value', 'GET / HTTP/1.1\r\nX: a\rb\r\n\r\n'],
    ['no colon', 'GET / HTTP/1.1\r\nNoColon\r\n\r\n'],
    ['empty name', 'GET / HTTP/1.1\r\n: x\r\n\r\n'],
    ['space before the colon', 'GET / HTTP/1.1\r\nContent-Length : 3\r\n\r\n'],
    ['non-token in a name', 'GET / HTTP/1.1\r\nBad Name: x\r\n\r\n'],
    ['obs-text in a name', 'GET / HTTP/1.1\r\nN\u00e9: x\r\n\r\n'],
    ['duplicate Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 1\r\ncontent-length: 1\r\n\r\nx'],
    ['Content-Length list', 'POST / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\nx'],
    ['negative Content-Length', 'POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n'],
    ['hex Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n'],
    ['empty Content-Length', 'POST / HTTP/1.1\r\nContent-Length:\r\n\r\n'],
    ['16-digit Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 1000000000000000\r\n\r\n'],
    ['Content-Length and Transfer-Encoding', 'POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n'],
    ['Transfer-Encoding and Content-Length', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n'],
    ['Transfer-Encoding: gzip', 'POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n'],
    ['Transfer-Encoding: gzip, chunked', 'POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'],
    ['Transfer-Encoding: identity', 'POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n'],
    ['duplicate Transfer-Encoding', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n'],
    ['chunked in HTTP/1.0', 'POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n'],
    ['Connection: upgrade', 'GET / HTTP/1.1\r\nConnection: upgrade\r\n\r\n'],
    ['Connection: close, keep-alive', 'GET / HTTP/1.1\r\nConnection: close, keep-alive\r\n\r\n'],
    ['Connection empty', 'GET / HTTP/1.1\r\nConnection:\r\n\r\n'],
    ['duplicate Connection', 'GET / HTTP/1.1\r\nConnection: close\r\nConnection: close\r\n\r\n'],
    ['Upgrade', 'GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n'],
    ['TE', 'GET / HTTP/1.1\r\nTE: trailers\r\n\r\n'],
    ['Expect other than 100-continue', 'POST / HTTP/1.1\r\nExpect: 200-ok\r\n\r\n'],
    ['duplicate Expect', 'POST / HTTP/1.1\r\nExpect: 100-continue\r\nExpect: 100-continue\r\n\r\n'],
    ['129 header lines', `GET / HTTP/1.1\r\n${Array.from({ length: 129 }, (_, i) => `X-${i}: ${i}\r\n`).join('')}\r\n`],
    ['a head over the limit', `GET / HTTP/1.1\r\nX: ${'a'.repeat(FAST_HEAD_LIMIT)}\r\n\r\n`],
  ];

  for (const [name, text] of bails) {
    it(name, () => {
      expect(head(text)).toBe('bail');
    });
  }

  it('a bare LF bails even before the head is complete', () => {
    expect(head('GET / HTTP/1.1\nHo')).toBe('bail');
    expect(head('GET / HTTP/1.1\r\nHost: x\n')).toBe('bail');
  });

  // node:http rejects a head at its first bad byte: a client that sent one and waits gets
  // node's answer at once, not after headers-timeout.
  const partialBails: [string, string][] = [
    ['not a method', 'XYZ'],
    ['binary', '\x16\x03\x01'],
    ['lower-case method', 'ge'],
    ['a method not taken', 'PATCH'],
    ['a method too long', 'GETS'],
    ['a target not in origin form', 'GET h'],
    ['CTL in the target', 'GET /a\x06b'],
    ['obs-text in the target', 'GET /\u00e9'],
    ['bad version', 'GET / HTTP/2'],
    ['bad version case', 'GET / http'],
    ['CR ending a bad request line', 'GET / HTTP/1.2\r'],
    ['CR inside the request line', 'GET /a\rb'],
    ['a header name with a space', 'GET / HTTP/1.1\r\nBad Na'],
    ['a header line starting with whitespace (obs-fold)', 'GET / HTTP/1.1\r\nA: b\r\n c'],
    ['an empty header name', 'GET / HTTP/1.1\r\n:'],
    ['a header line without a colon, ended', 'GET / HTTP/1.1\r\nNoColon\r'],
    ['CTL in a partial value', 'GET / HTTP/1.1\r\nX: a\x01'],
    ['CR inside a partial value', 'GET / HTTP/1.1\r\nX: a\rb'],
    ['a complete header line not taken', 'GET / HTTP/1.1\r\nUpgrade: h2c\r\nHost: x'],
    ['duplicate Content-Length, complete lines', 'POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n'],
  ];
  for (const [name, text] of partialBails) {
    it(`before the head is complete: ${name}`, () => {
      expect(head(text)).toBe('bail');
    });
  }

  it('partial heads that may still become one Grid takes stay incomplete', () => {
    for (const text of ['', 'G', 'GE', 'GET', 'GET ', 'GET /', 'GET /a?b', 'GET /a ', 'GET /a H', 'GET /a HTTP/1.', 'GET /a HTTP/1.0', 'GET /a HTTP/1.1\r', 'DELETE /', 'HEAD / HTTP/1.1\r\nX', 'GET / HTTP/1.1\r\nX-A: b\tc \u00e9', 'GET / HTTP/1.1\r\nX-A: b\r', 'GET / HTTP/1.1\r\nX-A: b\r\n\r']) {
      expect(head(text), JSON.stringify(text)).toBe('incomplete');
    }
  });
});
