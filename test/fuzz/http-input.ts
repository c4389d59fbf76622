// HTTP fuzz input: request streams built from a seed corpus of valid Grid REST requests
// (corpus/http-requests.txt), mutated byte by byte and field by field (request lines,
// headers, chunked bodies, percent-escapes, sizes), pipelined, or random. A filter keeps out
// anything that could change the cluster through a legitimate management call.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng, chunkBytes, mutateMany } from './engine.js';

export interface HttpSeed {
  readonly name: string;
  readonly bytes: Buffer;
}

const CORPUS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'corpus', 'http-requests.txt');

/** The seed requests, with `{cluster}` filled in. */
export function loadHttpCorpus(clusterName: string, file = CORPUS_FILE): HttpSeed[] {
  const text = readFileSync(file, 'utf8');
  const out: HttpSeed[] = [];
  const parts = text.split(/^### (.*)$/m);
  for (let i = 1; i < parts.length; i += 2) {
    const name = (parts[i] as string).trim();
    const block = (parts[i + 1] as string).replace(/^\n/, '').replace(/\n+$/, '').replaceAll('{cluster}', clusterName);
    const split = block.indexOf('\n\n');
    let head = split === -1 ? block : block.slice(0, split);
    let body = split === -1 ? '' : block.slice(split + 2).replaceAll('\n', '\r\n').replaceAll('{crlf}', '\r\n');
    if (/^transfer-encoding:\s*chunked/im.test(head)) body += '\r\n\r\n';
    const bodyBytes = Buffer.from(body, 'latin1');
    head = head.replaceAll('{len}', String(bodyBytes.length)).replaceAll('\n', '\r\n');
    out.push({ name, bytes: Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), bodyBytes]) });
  }
  return out;
}

interface Parsed {
  requestLine: string;
  headers: string[];
  body: Buffer;
}

function parse(b: Buffer): Parsed {
  const end = b.indexOf('\r\n\r\n');
  const head = (end === -1 ? b : b.subarray(0, end)).toString('latin1');
  const [requestLine = '', ...headers] = head.split('\r\n');
  return { requestLine, headers, body: end === -1 ? Buffer.alloc(0) : b.subarray(end + 4) };
}

function unparse(p: Parsed, eol = '\r\n'): Buffer {
  return Buffer.concat([Buffer.from([p.requestLine, ...p.headers].join(eol) + eol + eol, 'latin1'), p.body]);
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'get', 'G\u00c9T', 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX', ''];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1x', 'HTTP/1', 'http/1.1', 'HTTP/9.9', ''];
const ESCAPES = ['%', '%2', '%zz', '%00', '%ff', '%c3%28', '%e2%82', '%f0%9f%98', '%ed%a0%80', '%2f', '%25', '%%', '%u0041', '%C0%AF', '%0d%0a'];
const PATHS = [
  '/hazelcast/rest/maps/', '/hazelcast/rest/maps/fz-m/', '/grid/rest/maps/fz-m', '/hazelcast/rest/queues/fz-q/', '/hazelcast/rest/queues/fz-q/-1',
  '/hazelcast/rest/queues/fz-q/99999999999999', '/hazelcast/rest/queues//', '/hazelcast/health/', '/hazelcast/rest/management/cluster/',
  '/grid/', '/', '*', '', '//hazelcast/rest/cluster', '/hazelcast/rest/../rest/cluster', 'http://x/grid/rest/cluster', 'https://', '/hazelcast/rest/cp-subsystem/',
];
const HEADER_LINES = [
  'Content-Length: 0', 'Content-Length: -1', 'Content-Length: 18446744073709551616', 'Content-Length: 5, 5', 'Content-Length: 0x10', 'Content-Length: 1e3',
  'Content-Length: 999999999', 'Content-Length:', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: identity',
  'Transfer-Encoding: chunked, chunked', 'Transfer-Encoding: xchunked', 'Expect: 100-continue', 'Expect: 200-ok', 'Connection: close', 'Connection: upgrade',
  'Upgrade: websocket', 'Upgrade: h2c', 'Host:', 'Host: a', 'Host: a\r\nHost: b', 'Content-Type:', 'Content-Type: \u00ff\u00fe', 'Authorization: Basic ',
  'Authorization: Basic !!!', 'Authorization: Basic ' + Buffer.from(':').toString('base64'), 'X-Fold: a\r\n b', ' leading: space', 'NoColon',
  'Bad Name: x', 'Bad\u0000Name: x', 'X: \u0000', 'X: a\rb', ':empty-name', 'Content-Length : 3', 'Te: trailers', 'Trailer: Content-Length', 'Keep-Alive: timeout=0',
];
const CHUNKED_BODIES = [
  'ffffffffffffffff\r\nx\r\n0\r\n\r\n', '-1\r\nx\r\n0\r\n\r\n', '5\r\nabc\r\n0\r\n\r\n', '3\r\nabcde\r\n0\r\n\r\n', '3;' + 'e'.repeat(10000) + '\r\nabc\r\n0\r\n\r\n',
  'z\r\n', '0\r\nX-Trailer: ' + 'y'.repeat(20000) + '\r\n\r\n', '3\nabc\n0\n\n', '0\r\n', '1\r\na', '00000000000000000001\r\na\r\n0\r\n\r\n', '0\r\n\r\n', ' 3\r\nabc\r\n0\r\n\r\n',
];

/** Names the filter keeps out; the canary's map is one. */
const DESTRUCTIVE = ['shutdown', 'changestate', 'log-level', 'member-list', 'version', 'license', 'partialstart', 'forcestart'];

/** Percent-decodes what decodes, leaves the rest (no exceptions). */
function lenientDecode(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Why the case must not be sent (it could be a valid cluster-changing call, or touch the canary), or undefined. */
export function httpVerdict(bytes: Buffer, clusterName: string, forbidden: readonly string[]): string | undefined {
  const raw = bytes.toString('latin1').toLowerCase();
  const text = lenientDecode(raw);
  for (const f of forbidden) if (text.includes(f.toLowerCase()) || raw.includes(f.toLowerCase())) return `names ${f}`;
  if (text.includes(clusterName.toLowerCase()) && DESTRUCTIVE.some((d) => text.includes(d))) return 'a management call with the cluster name';
  return undefined;
}

function mutateStructure(rng: Rng, seed: Buffer, clusterName: string): Buffer {
  const p = parse(seed);
  const [method = 'GET', target = '/', version = 'HTTP/1.1'] = p.requestLine.split(' ');
  switch (rng.int(9)) {
    case 0:
      p.requestLine = `${rng.pick(METHODS)} ${target} ${version}`;
      break;
    case 1: {
      // bad percent-escapes somewhere in the path
      const at = rng.int(target.length + 1);
      p.requestLine = `${method} ${target.slice(0, at)}${rng.pick(ESCAPES)}${target.slice(at)} ${version}`;
      break;
    }
    case 2:
      p.requestLine = `${method} ${rng.pick(PATHS)}${rng.chance(0.5) ? rng.pick(ESCAPES) : ''} ${rng.pick(VERSIONS)}`;
      break;
    case 3: {
      // an oversize request line or header
      const n = rng.pick([1000, 8000, 16_500, 70_000]);
      if (rng.chance(0.5)) p.requestLine = `${method} ${target}${'a'.repeat(n)} ${version}`;
      else p.headers.push(`X-Big: ${'b'.repeat(n)}`);
      break;
    }
    case 4: {
      const n = 1 + rng.size(rng.chance(0.1) ? 2000 : 5);
      for (let i = 0; i < n; i++) p.headers.splice(rng.int(p.headers.length + 1), 0, rng.pick(HEADER_LINES));
      break;
    }
    case 5:
      if (p.headers.length > 0) p.headers.splice(rng.int(p.headers.length), 1);
      break;
    case 6: {
      // a chunked body that lies or is malformed
      p.headers = p.headers.filter((h) => !/^content-length:/i.test(h));
      p.headers.push('Transfer-Encoding: chunked');
      p.body = Buffer.from(rng.pick(CHUNKED_BODIES), 'latin1');
      break;
    }
    case 7: {
      // a body shorter or longer than announced, or large
      const size = rng.chance(0.1) ? rng.pick([65_536, 262_144]) : rng.size(2000);
      const body = Buffer.alloc(size, 0x61);
      const declared = rng.weighted<number>([
        [2, size],
        [1, size + rng.range(1, 100)],
        [1, Math.max(0, size - rng.range(1, 100))],
      ]);
      p.headers = p.headers.filter((h) => !/^(content-length|transfer-encoding):/i.test(h));
      p.headers.push(`Content-Length: ${declared}`);
      p.body = body;
      break;
    }
    default:
      // bare LF line endings
      return unparse(p, '\n');
  }
  // Management bodies keep their cluster-name parameter realistic.
  if (p.body.length === 0 && rng.chance(0.1)) p.body = Buffer.from(`${clusterName}&x`, 'latin1');
  return unparse(p);
}

export interface HttpCase {
  readonly index: number;
  readonly seed: number;
  readonly target: number;
  readonly label: string;
  readonly bytes: Buffer;
  readonly chunks: readonly Buffer[];
}

function oneRequest(rng: Rng, corpus: readonly HttpSeed[], clusterName: string): { label: string; bytes: Buffer } {
  const seed = rng.pick(corpus);
  const donors = corpus.map((s) => s.bytes);
  return rng.weighted<() => { label: string; bytes: Buffer }>([
    [2, () => ({ label: `seed: ${seed.name}`, bytes: seed.bytes })],
    [4, () => ({ label: `mutated: ${seed.name}`, bytes: mutateMany(rng, seed.bytes, 1 + rng.int(4), donors) })],
    [5, () => ({ label: `restructured: ${seed.name}`, bytes: mutateStructure(rng, seed.bytes, clusterName) })],
    [
      1,
      () => {
        const b = rng.bytes(rng.size(400));
        if (b[0] === 0) b[0] = 0x47; // a first 0x00 byte is the member protocol, not HTTP
        return { label: 'random bytes', bytes: b };
      },
    ],
  ])();
}

/** Generates HTTP case `index` (deterministic in `seed`). */
export function httpCase(seed: number, index: number, corpus: readonly HttpSeed[], clusterName: string, forbidden: readonly string[], targets: number): HttpCase {
  const rng = new Rng(seed);
  const target = rng.int(targets);
  for (let attempt = 0; attempt < 50; attempt++) {
    let { label, bytes } = oneRequest(rng, corpus, clusterName);
    if (rng.chance(0.2)) {
      // pipelining: several requests in one stream
      const more = Array.from({ length: 1 + rng.int(5) }, () => oneRequest(rng, corpus, clusterName));
      label = `pipelined: ${[label, ...more.map((m) => m.label)].join(' + ')}`;
      bytes = Buffer.concat([bytes, ...more.map((m) => m.bytes)]);
    }
    if (bytes.length === 0 || bytes[0] === 0) continue;
    if (httpVerdict(bytes, clusterName, forbidden) !== undefined) continue;
    return { index, seed, target, label, bytes, chunks: chunkBytes(rng, bytes) };
  }
  const bytes = Buffer.from('GET /hazelcast/health HTTP/1.1\r\nHost: x\r\n\r\n');
  return { index, seed, target, label: 'fallback: health', bytes, chunks: [bytes] };
}
