// Stand-in for a Grid member, used by `node bench/run.mjs --target fake` to
// develop/check the harness without the real member. Implements only the REST
// endpoints the benchmark touches, in memory, with plain node:http:
//
//   GET    /{hazelcast,grid}/health/ready                 -> 200
//   POST   /{hazelcast,grid}/rest/maps/<map>/<key>        -> 200 (body = value)
//   GET    /{hazelcast,grid}/rest/maps/<map>/<key>        -> 200 value | 204
//   POST   /{hazelcast,grid}/rest/queues/<q>              -> 200 | 503 when full
//   DELETE /{hazelcast,grid}/rest/queues/<q>/<timeoutSec> -> 200 item | 204
//   GET    /{hazelcast,grid}/rest/queues/<q>/size         -> 200 "<n>"
//
//   node bench/fake-member.mjs --config <grid.yaml>   (reads network.port.port)
//   node bench/fake-member.mjs --port 5701
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    'queue-capacity': { type: 'string', default: '100000' },
  },
});

function portFromConfig(file) {
  const text = readFileSync(file, 'utf8');
  // Accepts both `port: { port: 5701, ... }` and the block form.
  const m = /port:\s*\{\s*port:\s*(\d+)/.exec(text) ?? /port:\s*\n\s+port:\s*(\d+)/.exec(text);
  if (!m) throw new Error(`no network.port.port in ${file}`);
  return Number(m[1]);
}

const port = values.port ? Number(values.port) : values.config ? portFromConfig(values.config) : 5701;
const queueCapacity = Number(values['queue-capacity']);
const log = (level, msg, extra = {}) =>
  process.stdout.write(JSON.stringify({ level, time: Date.now(), msg, ...extra }) + '\n');

/** @type {Map<string, Map<string, string>>} */
const maps = new Map();
/** @type {Map<string, string[]>} */
const queues = new Map();

const mapOf = (name) => {
  let m = maps.get(name);
  if (!m) maps.set(name, (m = new Map()));
  return m;
};
const queueOf = (name) => {
  let q = queues.get(name);
  if (!q) queues.set(name, (q = []));
  return q;
};

function send(res, status, body) {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
  } else {
    res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}

function handle(req, res, body) {
  const url = req.url ?? '/';
  const m = /^\/(?:hazelcast|grid)(\/.*)$/.exec(url.split('?')[0]);
  if (!m) return send(res, 404, 'not found');
  const parts = m[1].split('/').filter(Boolean).map(decodeURIComponent);

  if (parts[0] === 'health') {
    return send(res, 200, JSON.stringify({ nodeState: 'ACTIVE', clusterState: 'ACTIVE' }));
  }
  if (parts[0] !== 'rest') return send(res, 404, 'not found');

  if (parts[1] === 'maps' && parts.length === 4) {
    const map = mapOf(parts[2]);
    if (req.method === 'POST') {
      map.set(parts[3], body.toString('latin1'));
      return send(res, 200);
    }
    if (req.method === 'GET') {
      const v = map.get(parts[3]);
      return v === undefined ? send(res, 204) : send(res, 200, v);
    }
    if (req.method === 'DELETE') {
      map.delete(parts[3]);
      return send(res, 200);
    }
  }
  if (parts[1] === 'queues' && parts.length >= 3) {
    const q = queueOf(parts[2]);
    if (req.method === 'POST' && parts.length === 3) {
      if (q.length >= queueCapacity) return send(res, 503);
      q.push(body.toString('latin1'));
      return send(res, 200);
    }
    if (req.method === 'DELETE' && parts.length === 4) {
      // Timeouts are not honoured: poll returns immediately (fine for the bench).
      const item = q.shift();
      return item === undefined ? send(res, 204) : send(res, 200, item);
    }
    if (req.method === 'GET' && parts[3] === 'size') return send(res, 200, String(q.length));
  }
  return send(res, 400, 'bad request');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      handle(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    } catch (err) {
      log('error', 'request failed', { err: String(err) });
      send(res, 500, 'internal error');
    }
  });
});
server.keepAliveTimeout = 60_000;

server.listen(port, values.host, () => log('info', 'fake member listening', { port, pid: process.pid }));

const stop = (signal) => {
  log('info', 'stopping', { signal });
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', () => stop('SIGTERM'));
// Never outlive the harness (e.g. if it was SIGKILLed).
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) process.exit(0);
}, 1000).unref();
process.on('SIGINT', () => stop('SIGINT'));
