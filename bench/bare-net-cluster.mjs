// The JavaScript floor of forwarding, for bench/cluster.mjs: what a request that lands on a
// non-owner costs when nothing but the forwarding itself happens. N processes, each a plain
// `net` HTTP server that parses requests itself (as bench/bare-net-server.mjs does) and keeps a
// Map of values and of queues; a key (or queue name) belongs to member hash(name) % N. A request
// for another member's data goes there as a binary frame on one TCP connection per peer, frames
// of one event-loop turn written together (setImmediate); the answer comes back on the same
// connection. A write (map POST, queue offer and poll) is applied by its owner and copied to the
// next member (one sync backup) before it is answered, as Grid does with backup-count 1. No
// partition table, no validation, no failure handling: a floor, not a data grid. With one port
// it is one process serving from its own Maps (the single-member floor).
//
//   node bench/bare-net-cluster.mjs --index I --ports HTTP0,HTTP1,.. --peer-ports P0,P1,..
//   GET    .../maps/<map>/<key>      200 + value, or 204
//   POST   .../maps/<map>/<key>      200
//   POST   .../queues/<name>         200 (offer)
//   DELETE .../queues/<name>/0       200 + value, or 204 (poll)
//   GET    .../health/...            200 (readiness)
import net from 'node:net';
import { parseArgs } from 'node:util';
import { contentLength, exitWithParent } from './bare-common.mjs';

const { values } = parseArgs({
  options: {
    index: { type: 'string', default: '0' },
    ports: { type: 'string' },
    'peer-ports': { type: 'string', default: '' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
const ports = (values.ports ?? '').split(',').filter(Boolean).map(Number);
const peerPorts = values['peer-ports'].split(',').filter(Boolean).map(Number);
const me = Number(values.index);
const N = ports.length;
if (N === 0 || !ports.every((p) => Number.isInteger(p) && p > 0) || !(me >= 0 && me < N) || (N > 1 && peerPorts.length !== N)) {
  process.stderr.write('usage: node bench/bare-net-cluster.mjs --index I --ports H0,H1,.. --peer-ports P0,P1,..\n');
  process.exit(2);
}

const OP_GET = 1;
const OP_PUT = 2;
const OP_OFFER = 3;
const OP_POLL = 4;
/** Backups of the ops above: OP_BACKUP + op. */
const OP_BACKUP = 16;
const CRLFCRLF = Buffer.from('\r\n\r\n');
const HEAD_200 = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\nContent-Length: ';
const EMPTY_200 = 'HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n';
const EMPTY_204 = 'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n';

/** key -> value (latin1 string): this member's own keys and its backups. */
const store = new Map();
/** queue name -> values (oldest first): this member's own queues and its backups. */
const queues = new Map();

function queueOf(name) {
  let q = queues.get(name);
  if (q === undefined) queues.set(name, (q = []));
  return q;
}

/** Applies a write here (owner or backup); a poll returns what it took. */
function apply(op, key, value) {
  if (op === OP_PUT) store.set(key, value);
  else if (op === OP_OFFER) queueOf(key).push(value);
  else if (op === OP_POLL) return queueOf(key).shift();
  return undefined;
}

function ownerOf(key) {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % N;
}


// ------------------------------------------------------------------ member connections
/** One peer connection's frames of this turn, written in one go. */
class Link {
  constructor(socket) {
    this.socket = socket;
    this.out = [];
    this.scheduled = false;
    this.pending = new Map();
    this.nextId = 1;
    this.rest = null;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => socket.destroy());
  }
  send(frame) {
    this.out.push(frame);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        const out = this.out;
        this.out = [];
        this.socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
      });
    }
  }
  /** op, key, value -> the answer's status and value, through `done(status, value)`. */
  request(op, key, value, done) {
    const id = this.nextId++;
    this.pending.set(id, done);
    const vlen = value === undefined ? 0 : value.length;
    const f = Buffer.allocUnsafe(4 + 4 + 1 + 2 + key.length + vlen);
    f.writeUInt32BE(f.length - 4, 0);
    f.writeUInt32BE(id, 4);
    f[8] = op;
    f.writeUInt16BE(key.length, 9);
    f.latin1Write(key, 11);
    if (vlen) f.latin1Write(value, 11 + key.length);
    this.send(f);
  }
  answer(id, status, value) {
    const vlen = value === undefined ? 0 : value.length;
    const f = Buffer.allocUnsafe(4 + 4 + 1 + vlen);
    f.writeUInt32BE(f.length - 4, 0);
    f.writeUInt32BE(id, 4);
    f[8] = status;
    if (vlen) f.latin1Write(value, 9);
    this.send(f);
  }
  onData(chunk) {
    let buf = this.rest === null ? chunk : Buffer.concat([this.rest, chunk]);
    this.rest = null;
    let at = 0;
    while (buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (buf.length - at - 4 < len) break;
      this.onFrame(buf, at + 4, at + 4 + len);
      at += 4 + len;
    }
    if (at < buf.length) this.rest = buf.subarray(at);
  }
  onFrame(b, start, end) {
    const id = b.readUInt32BE(start);
    const pending = this.pending.get(id);
    if (pending !== undefined) {
      // An answer to this member's request.
      this.pending.delete(id);
      pending(b[start + 4], end > start + 5 ? b.latin1Slice(start + 5, end) : undefined);
      return;
    }
    // A request from the peer.
    const op = b[start + 4];
    const klen = b.readUInt16BE(start + 5);
    const key = b.latin1Slice(start + 7, start + 7 + klen);
    if (op === OP_GET) {
      const v = store.get(key);
      this.answer(id, v === undefined ? 0 : 1, v);
    } else if (op > OP_BACKUP) {
      apply(op - OP_BACKUP, key, b.latin1Slice(start + 7 + klen, end));
      this.answer(id, 1, undefined);
    } else {
      writeHere(op, key, b.latin1Slice(start + 7 + klen, end), (v) => this.answer(id, v === undefined ? 0 : 1, v));
    }
  }
}

/** Outbound connections, by member index (requests go out here, answers come back here). */
const links = new Array(N).fill(null);

/** A write at its owner (here): applied, copied to the next member, answered once the copy is acknowledged. */
function writeHere(op, key, value, done) {
  const v = apply(op, key, value);
  if (N === 1) return done(v);
  links[(me + 1) % N].request(OP_BACKUP + op, key, value, () => done(v));
}

// ------------------------------------------------------------------ HTTP
function serveHttp(socket) {
  let pending = null;
  /** Answers in request order (a forwarded one may come back after a later local one). */
  const queue = [];
  const flush = () => {
    let out = '';
    while (queue.length > 0 && queue[0].text !== null) out += queue.shift().text;
    if (out !== '') socket.write(out, 'latin1');
  };
  socket.setNoDelay(true);
  socket.on('data', (chunk) => {
    let buf = pending === null ? chunk : Buffer.concat([pending, chunk]);
    pending = null;
    let at = 0;
    while (at < buf.length) {
      const end = buf.indexOf(CRLFCRLF, at);
      if (end === -1) break;
      const head = buf.latin1Slice(at, end);
      const sp1 = head.indexOf(' ');
      const sp2 = head.indexOf(' ', sp1 + 1);
      if (sp1 <= 0 || sp2 === -1) {
        socket.destroy();
        return;
      }
      const bodyStart = end + 4;
      const next = bodyStart + contentLength(head);
      if (next > buf.length) break;
      const method = head.slice(0, sp1);
      const path = head.slice(sp1 + 1, sp2);
      const slot = { text: null };
      queue.push(slot);
      const answer = (found, v) => {
        slot.text = found ? (v === undefined ? EMPTY_200 : `${HEAD_200}${v.length}\r\n\r\n${v}`) : EMPTY_204;
        flush();
      };
      const q = path.indexOf('/queues/');
      let op;
      let key;
      if (path.includes('/health')) {
        answer(true, undefined);
        at = next;
        continue;
      } else if (q !== -1) {
        key = path.slice(q + 8).split('/')[0];
        op = method === 'POST' ? OP_OFFER : OP_POLL;
      } else {
        key = path.slice(path.lastIndexOf('/') + 1);
        op = method === 'GET' ? OP_GET : OP_PUT;
      }
      const owner = ownerOf(key);
      const value = op === OP_PUT || op === OP_OFFER ? buf.latin1Slice(bodyStart, next) : undefined;
      if (op === OP_GET) {
        if (owner === me) {
          const v = store.get(key);
          answer(v !== undefined, v);
        } else links[owner].request(OP_GET, key, undefined, (status, v) => answer(status === 1, v));
      } else if (owner === me) {
        writeHere(op, key, value, op === OP_POLL ? (v) => answer(v !== undefined, v) : () => answer(true, undefined));
      } else {
        links[owner].request(op, key, value, op === OP_POLL ? (status, v) => answer(status === 1, v) : () => answer(true, undefined));
      }
      at = next;
    }
    if (at < buf.length) pending = buf.subarray(at);
  });
  socket.on('error', () => socket.destroy());
}

const http = net.createServer({ noDelay: true }, serveHttp);
const servers = [http];
if (N > 1) {
  const peerServer = net.createServer((socket) => new Link(socket));
  servers.push(peerServer);
  peerServer.listen(peerPorts[me], values.host);
}

/** Dial every other member (retrying until it listens), then serve HTTP. */
async function dialAll() {
  for (let i = 0; i < N; i++) {
    if (i === me) continue;
    for (;;) {
      const socket = await new Promise((resolve) => {
        const s = net.connect(peerPorts[i], values.host);
        s.once('connect', () => resolve(s));
        s.once('error', () => resolve(null));
      });
      if (socket !== null) {
        links[i] = new Link(socket);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

await dialAll();
http.listen(ports[me], values.host, () => {
  process.stdout.write(JSON.stringify({ level: 'info', msg: 'bare net cluster member listening', index: me, members: N, port: ports[me] }) + '\n');
});

exitWithParent(servers);
