// Grid's HTTP/1.1 request parser on byte vectors: parseHead's accepted shapes, every 'bail'
// (the request is node:http's to answer) and every 'incomplete'; the ChunkedDecoder fed whole
// and one byte at a time (same data, same bytes used: the rest is the next request), and each
// way a chunked body can be malformed, with the error code node:http (llhttp 9, Node 20)
// reports for the same bytes.

import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ChunkedDecoder, FAST_HEAD_LIMIT, parseHead, type HeadResult, type RequestHead } from '../../../src/rest/http1-parser.js';

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

  it('Expect: 100-continue (any case) in HTTP/1.1; ignored in HTTP/1.0, as node:http ignores it', () => {
    expect(accepted('POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n')).toMatchObject({ expectContinue: true, contentLength: 1 });
    expect(accepted('POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n')).toMatchObject({ expectContinue: false, contentLength: 1 });
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
    // node takes SP after a framing field's value but not HTAB (fuzz seed 2627, case 297).
    ['HTAB after a Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 6\t\r\n\r\nspaced'],
    ['SP and HTAB after a Content-Length', 'POST / HTTP/1.1\r\nContent-Length:   6  \t\r\n\r\nspaced'],
    ['HTAB after Transfer-Encoding: chunked', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\t\r\n\r\n0\r\n\r\n'],
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
    ['a Content-Length that is not digits, partial', 'POST / HTTP/1.1\r\nContent-Length: 9u'],
    ['a second Content-Length, partial', 'POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1'],
    ['Content-Length after chunked, partial', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1'],
    ['a Transfer-Encoding other than chunked, partial', 'POST / HTTP/1.1\r\nTransfer-Encoding: gz'],
    ['HTAB after a partial Content-Length', 'POST / HTTP/1.1\r\nContent-Length: 6\t'],
    ['HTAB after chunked, partial', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\t'],
    ['a Connection other than close or keep-alive, partial', 'GET / HTTP/1.1\r\nConnection: up'],
    ['an Expect other than 100-continue, partial', 'POST / HTTP/1.1\r\nExpect: 2'],
    ['Upgrade, partial', 'GET / HTTP/1.1\r\nUpgrade:'],
    ['TE, partial', 'GET / HTTP/1.1\r\nTE: t'],
  ];
  for (const [name, text] of partialBails) {
    it(`before the head is complete: ${name}`, () => {
      expect(head(text)).toBe('bail');
    });
  }

  it('partial heads that may still become one Grid takes stay incomplete', () => {
    for (const text of [
      '', 'G', 'GE', 'GET', 'GET ', 'GET /', 'GET /a?b', 'GET /a ', 'GET /a H', 'GET /a HTTP/1.', 'GET /a HTTP/1.0', 'GET /a HTTP/1.1\r', 'DELETE /',
      'HEAD / HTTP/1.1\r\nX', 'GET / HTTP/1.1\r\nX-A: b\tc \u00e9', 'GET / HTTP/1.1\r\nX-A: b\r', 'GET / HTTP/1.1\r\nX-A: b\r\n\r',
      'POST / HTTP/1.1\r\nContent-Length:', 'POST / HTTP/1.1\r\nContent-Length: 12', 'POST / HTTP/1.1\r\nContent-Length: 12 \r',
      'POST / HTTP/1.1\r\nTransfer-Encoding: Chun', 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked ', 'GET / HTTP/1.1\r\nConnection: close\t', 'GET / HTTP/1.1\r\nConnection: Keep-', 'GET / HTTP/1.1\r\nConnection: close',
      'POST / HTTP/1.1\r\nExpect: 100-', 'GET / HTTP/1.1\r\nUpgrad', 'GET / HTTP/1.1\r\nTE',
    ]) {
      expect(head(text), JSON.stringify(text)).toBe('incomplete');
    }
  });
});

// ---------------------------------------------------------------- chunked bodies

interface Decoded {
  data: string;
  used: number;
  done: boolean;
  error: string | undefined;
}

function decodeWhole(text: string, maxTrailerBytes = 16_384): Decoded {
  const buf = b(text);
  const d = new ChunkedDecoder(maxTrailerBytes);
  const parts: Buffer[] = [];
  const used = d.feed(buf, 0, buf.length, (c) => parts.push(Buffer.from(c)));
  return { data: Buffer.concat(parts).toString('latin1'), used, done: d.done, error: d.error };
}

/** One byte per feed (each from its own buffer, at an offset), stopping when the decoder uses less than it was given. */
function decodeBytewise(text: string, maxTrailerBytes = 16_384): Decoded {
  const buf = b(text);
  const d = new ChunkedDecoder(maxTrailerBytes);
  const parts: Buffer[] = [];
  let used = 0;
  for (let i = 0; i < buf.length; i++) {
    const one = Buffer.concat([b('~~'), buf.subarray(i, i + 1), b('~')]);
    const n = d.feed(one, 2, 3, (c) => parts.push(Buffer.from(c)));
    used += n;
    if (n < 1 || d.done || d.error !== undefined) break;
  }
  return { data: Buffer.concat(parts).toString('latin1'), used, done: d.done, error: d.error };
}

function both(text: string, maxTrailerBytes?: number): Decoded {
  const whole = decodeWhole(text, maxTrailerBytes);
  expect(decodeBytewise(text, maxTrailerBytes), `byte at a time: ${JSON.stringify(text.slice(0, 80))}`).toEqual(whole);
  return whole;
}

/** Valid chunked bodies and the data in them. */
const valid: [string, string, string][] = [
  ['one chunk', '5\r\nhello\r\n0\r\n\r\n', 'hello'],
  ['two chunks, upper and lower hex', 'A\r\n0123456789\r\nb\r\nabcdefghijk\r\n0\r\n\r\n', '0123456789abcdefghijk'],
  ['empty body', '0\r\n\r\n', ''],
  ['leading zeros', '0005\r\nhello\r\n000\r\n\r\n', 'hello'],
  ['many leading zeros', '00000000000000000001\r\na\r\n0\r\n\r\n', 'a'],
  ['extensions on data and last chunk', '5;name=value;quoted="a b"\r\nhello\r\n0;last\r\n\r\n', 'hello'],
  ['CRLF and binary in data', '4\r\n\r\n\x00\xff\r\n0\r\n\r\n', '\r\n\x00\xff'],
  ['trailers', '3\r\nabc\r\n0\r\nX-Trailer: 1\r\nOther: two words\r\n\r\n', 'abc'],
  ['an empty trailer value', '0\r\nX:\r\n\r\n', ''],
  ['a trailer value of OWS only', '0\r\nX:  \t\r\n\r\n', ''],
  ['trailer values with OWS, tabs and obs-text', '0\r\nX:\ta \r\nY: a\tb \u00e9\u0080\r\n\r\n', ''],
  ['Connection, Upgrade and an empty Transfer-Encoding as trailers', '0\r\nConnection: close\r\nUpgrade: x\r\nTransfer-Encoding:\r\n\r\n', ''],
  ['extension forms: empty name, empty value, token and quoted values, quoted-pairs', '3;=b;a=;a=b;c;d="x \\" \\\\ \t \u00e9"\r\nabc\r\n0\r\n\r\n', 'abc'],
];

/** Malformed chunked bodies: node's error, and the bytes used before it (the offending byte's offset). */
const invalid: [string, string, string, number][] = [
  // name, body, node's error, bytes used before it (the offending byte's offset)
  ['not hex', 'z\r\n', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['no digits before the extension', ';x\r\n', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['no digits before CR', '\r\n', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['negative', '-1\r\nx\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['space before the size', ' 3\r\nabc\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE', 0],
  ['space after the size', '3 \r\nabc\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE', 1],
  ['tab after the size', '3\t\r\nabc\r\n0\r\n\r\n', 'HPE_INVALID_CHUNK_SIZE', 1],
  ['0x prefix', '0x3\r\nabc\r\n', 'HPE_INVALID_CHUNK_SIZE', 1],
  ['2^64', '10000000000000000\r\nx', 'HPE_INVALID_CHUNK_SIZE', 16],
  ['far above 2^64', 'fffffffffffffffff\r\n', 'HPE_INVALID_CHUNK_SIZE', 16],
  ['2^64 after leading zeros', '0010000000000000000\r\n', 'HPE_INVALID_CHUNK_SIZE', 18],
  ['bare LF after the size', '3\nabc\r\n0\r\n\r\n', 'HPE_CR_EXPECTED', 1],
  ['CR without LF after the size', '3\rabc', 'HPE_STRICT', 2],
  ['CR without LF after the last size', '0\r\rX', 'HPE_STRICT', 2],
  ['space starting an extension', '3; a\r\nabc', 'HPE_STRICT', 2],
  ['empty extension', '3;\r\nabc', 'HPE_STRICT', 2],
  ['empty extension after another', '3;x;\r\nabc', 'HPE_STRICT', 4],
  ['LF starting an extension', '3;\nabc', 'HPE_CR_EXPECTED', 2],
  ['LF after an extension name', '3;x\nabc', 'HPE_CR_EXPECTED', 3],
  ['LF after an extension value', '3;a=b\nabc', 'HPE_CR_EXPECTED', 5],
  ['LF after a quoted extension value', '3;a="b"\nabc', 'HPE_CR_EXPECTED', 7],
  ['tab in an extension name', '3;\tx\r\nabc', 'HPE_STRICT', 2],
  ['space in an extension name', '3;a b\r\nabc', 'HPE_STRICT', 3],
  ['CTL in an extension name', '3;x\x01\r\nabc', 'HPE_STRICT', 3],
  ['DEL in an extension name', '3;x\x7f\r\nabc', 'HPE_STRICT', 3],
  ['obs-text in an extension name', '3;\u00e9\r\nabc', 'HPE_STRICT', 2],
  ['space in an extension value', '3;a=b c\r\nabc', 'HPE_STRICT', 5],
  ['= in an extension value', '3;a=b=c\r\nabc', 'HPE_STRICT', 5],
  ['obs-text in an unquoted extension value', '3;a=\u00e9\r\nabc', 'HPE_STRICT', 4],
  ['LF in a quoted extension value', '3;a="b\nabc', 'HPE_STRICT', 6],
  ['DEL in a quoted extension value', '3;a="\x7f"\r\nabc', 'HPE_STRICT', 5],
  ['CTL after a backslash in a quoted extension value', '3;a="\\\x01"\r\nabc', 'HPE_STRICT', 6],
  ['a byte after the closing quote', '3;a="b"x\r\nabc', 'HPE_STRICT', 7],
  ['data longer than its size', '3\r\nabcde\r\n0\r\n\r\n', 'HPE_STRICT', 6],
  ['LF without CR after data', '3\r\nabc\n0\r\n\r\n', 'HPE_CR_EXPECTED', 6],
  ['CR without LF after data', '3\r\nabc\rX', 'HPE_STRICT', 7],
  ['bare LF ending the body', '0\r\n\n', 'HPE_INVALID_HEADER_TOKEN', 3],
  ['CR without LF ending the body', '0\r\n\rX', 'HPE_STRICT', 4],
  ['CR without LF ending the body after a trailer', '0\r\nX: 1\r\n\rX', 'HPE_STRICT', 10],
  ['a trailer name with a space', '0\r\nBad Name: x\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 6],
  ['a space before the trailer colon', '0\r\nX : a\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 4],
  ['a trailer without a colon', '0\r\nX\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 4],
  ['an empty trailer name', '0\r\n:x\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 3],
  ['CTL in a trailer name', '0\r\nX\x01: a\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 4],
  ['a trailer starting with space', '0\r\n X: 1\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 3],
  ['obs-fold in trailers', '0\r\nX: 1\r\n Y: 2\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 9],
  ['bare LF ending a trailer', '0\r\nX: 1\n\r\n', 'HPE_CR_EXPECTED', 7],
  ['NUL in a trailer value', '0\r\nX: \x00\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 6],
  ['DEL in a trailer value', '0\r\nX: a\x7f\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 7],
  ['CR without LF ending a trailer', '0\r\nX: 1\rY', 'HPE_LF_EXPECTED', 8],
  ['bare LF after an empty trailer value', '0\r\nX: \nY: 1\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 6],
  ['bare LF after a trailer colon', '0\r\nX:\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 5],
  ['CR without LF after an empty trailer value', '0\r\nX: \rY', 'HPE_STRICT', 7],
  ['obs-fold after an empty trailer value', '0\r\nX: \r\n Y\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN', 8],
  ['a Content-Length trailer', '0\r\ncontent-length:\r\n\r\n', 'HPE_INVALID_CONTENT_LENGTH', 17],
  ['a Transfer-Encoding trailer with a value', '0\r\nTransfer-Encoding: chunked\r\n\r\n', 'HPE_INVALID_TRANSFER_ENCODING', 22],
];

describe('ChunkedDecoder: valid bodies', () => {

  for (const [name, body, data] of valid) {
    it(`${name}: the same data and bytes used, whole and one byte at a time; what follows is left`, () => {
      const r = both(`${body}GET /next HTTP/1.1\r\n\r\n`);
      expect(r).toEqual({ data, used: body.length, done: true, error: undefined });
    });
  }

  it('data arrives as subarrays of the input, without copies', () => {
    const buf = b('5\r\nhello\r\n0\r\n\r\n');
    const got: Buffer[] = [];
    new ChunkedDecoder(100).feed(buf, 0, buf.length, (c) => got.push(c));
    expect(got).toHaveLength(1);
    expect(got[0]!.buffer).toBe(buf.buffer);
  });

  it('an unfinished body uses everything and is not done', () => {
    for (const partial of ['5', '5\r', '5\r\nhel', '5\r\nhello', '5\r\nhello\r', '5\r\nhello\r\n0', '5\r\nhello\r\n0\r\n', '5\r\nhello\r\n0\r\n\r', '0\r\nX: 1\r\n', '3;ext']) {
      const r = both(partial);
      expect(r, JSON.stringify(partial)).toMatchObject({ used: partial.length, done: false, error: undefined });
    }
  });

  it('takes the largest size below 2^64 (16 hex digits) and waits for its data', () => {
    const r = both('ffffffffffffffff\r\nx\r\n0\r\n\r\n');
    expect(r).toMatchObject({ error: undefined, done: false, data: 'x\r\n0\r\n\r\n' });
    expect(both('0000ffffffffffffffff\r\nx')).toMatchObject({ error: undefined, done: false, data: 'x' });
  });

  it('once done, feed uses nothing more', () => {
    const d = new ChunkedDecoder(100);
    const buf = b('0\r\n\r\n');
    expect(d.feed(buf, 0, buf.length, () => undefined)).toBe(5);
    expect(d.feed(b('1\r\na'), 0, 4, () => undefined)).toBe(0);
    expect(d.done).toBe(true);
  });
});

describe('ChunkedDecoder: malformed bodies', () => {

  for (const [name, body, error, at] of invalid) {
    it(`${name}: ${error}, whole and one byte at a time`, () => {
      const r = both(body);
      expect(r.error).toBe(error);
      expect(r.done).toBe(false);
      expect(r.used).toBe(at);
    });
  }

  it('extensions: 16 KiB of names and values per chunk (not ; = or the size), then HPE_CHUNK_EXTENSIONS_OVERFLOW', () => {
    expect(both(`3;${'e'.repeat(16_384)}\r\nabc\r\n0\r\n\r\n`)).toMatchObject({ error: undefined, done: true, data: 'abc' });
    expect(both(`3;${'e'.repeat(16_385)}\r\nabc\r\n0\r\n\r\n`)).toMatchObject({ error: 'HPE_CHUNK_EXTENSIONS_OVERFLOW', used: 2 + 16_384 });
    expect(both(`3;${'a'.repeat(8000)}=${'b'.repeat(8384)}\r\nabc\r\n0\r\n\r\n`)).toMatchObject({ error: undefined, done: true });
    expect(both(`3;${'a'.repeat(8000)}=${'b'.repeat(8385)}\r\nabc\r\n0\r\n\r\n`)).toMatchObject({ error: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' });
    // Quotes count as value bytes.
    expect(both(`3;${'a'.repeat(8000)}="${'b'.repeat(8382)}"\r\nabc\r\n0\r\n\r\n`)).toMatchObject({ error: undefined, done: true });
    expect(both(`3;${'a'.repeat(8000)}="${'b'.repeat(8383)}"\r\nabc\r\n0\r\n\r\n`)).toMatchObject({ error: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' });
    // The count starts again at each chunk.
    expect(both(`1;${'a'.repeat(10_000)}\r\nx\r\n1;${'a'.repeat(10_000)}\r\ny\r\n0\r\n\r\n`)).toMatchObject({ error: undefined, done: true, data: 'xy' });
  });

  it('trailers: names and values (not the colon, leading OWS or CRLF) reaching maxTrailerBytes are HPE_HEADER_OVERFLOW', () => {
    expect(both('0\r\nX: 1234567\r\n\r\n', 9)).toMatchObject({ error: undefined, done: true });
    expect(both('0\r\nX:   12345678\r\n\r\n', 9)).toMatchObject({ error: 'HPE_HEADER_OVERFLOW', used: 3 + 2 + 3 + 7 });
    expect(both('0\r\nX: 123\r\nY: 123\r\n\r\n', 9)).toMatchObject({ error: undefined, done: true });
    expect(both('0\r\nX: 123\r\nY: 1234\r\n\r\n', 9)).toMatchObject({ error: 'HPE_HEADER_OVERFLOW' });
    // node with max-header-bytes 65536: 'X' and 65534 value bytes pass, one more does not.
    expect(both(`0\r\nX: ${'y'.repeat(65_534)}\r\n\r\n`, 65_536)).toMatchObject({ error: undefined, done: true });
    expect(both(`0\r\nX: ${'y'.repeat(65_535)}\r\n\r\n`, 65_536)).toMatchObject({ error: 'HPE_HEADER_OVERFLOW' });
  });

  it('after an error nothing more is decoded', () => {
    const d = new ChunkedDecoder(100);
    const buf = b('z');
    expect(d.feed(buf, 0, 1, () => undefined)).toBe(0);
    const data: Buffer[] = [];
    expect(d.feed(b('5\r\nhello'), 0, 8, (c) => data.push(c))).toBe(0);
    expect(data).toEqual([]);
    expect(d.error).toBe('HPE_INVALID_CHUNK_SIZE');
  });
});

// The vectors above are node's answers: each goes through node:http's own parser (llhttp) too,
// so a Node upgrade that changes one shows here first.
describe('ChunkedDecoder vectors against node:http', () => {
  async function nodeAnswer(body: string): Promise<string> {
    const server = http.createServer({ maxHeaderSize: 65_536, requireHostHeader: false }, (req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => res.end(Buffer.concat([b('ok:'), ...parts])));
      req.on('error', () => undefined);
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => socket.end(`HTTP/1.1 400 X\r\nX-Err: ${err.code ?? ''}\r\n\r\n`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as net.AddressInfo).port;
      return await new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        const got: Buffer[] = [];
        s.on('data', (d: Buffer) => {
          got.push(d);
          // One answer is all there is (the body's or its first error's): stop once it is complete.
          const text = Buffer.concat(got).toString('latin1');
          const end = text.indexOf('\r\n\r\n');
          if (end === -1) return;
          const cl = /content-length: (\d+)/i.exec(text.slice(0, end));
          if (cl === null || text.length - end - 4 >= Number(cl[1])) s.destroy();
        });
        s.on('close', () => resolve(Buffer.concat(got).toString('latin1')));
        s.on('error', () => undefined);
        // A body that node waits on (unfinished) is not in these lists.
        s.write(b(`POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}`));
      });
    } finally {
      server.close();
    }
  }

  it('node accepts every valid body with the same data, and rejects every invalid one with the same code', async () => {
    const wrong: string[] = [];
    for (const [name, body, data] of valid) {
      const answer = await nodeAnswer(body);
      if (!answer.endsWith(`ok:${data}`)) wrong.push(`${name}: node answered ${JSON.stringify(answer.slice(-80))}`);
    }
    for (const [name, body, error] of invalid) {
      const answer = await nodeAnswer(body);
      const code = /X-Err: (\S+)/.exec(answer)?.[1];
      if (code !== error) wrong.push(`${name}: node says ${code ?? JSON.stringify(answer.slice(0, 80))}, the test ${error}`);
    }
    expect(wrong).toEqual([]);
  });
});
