// The JavaScript ceiling for bench/run.mjs: a plain `net` server that parses HTTP/1.1 requests
// itself (request line, headers, Content-Length bodies; keep-alive, pipelining) and answers every
// request with 200 and a constant 100-byte body. No routing, no data: what a Node.js process can
// do per request when nothing but parsing and writing happens.
//
//   node bench/bare-net-server.mjs --port 5701 [--host 127.0.0.1]
import net from 'node:net';
import { parseArgs } from 'node:util';
import { contentLength, exitWithParent } from './bare-common.mjs';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: node bench/bare-net-server.mjs --port <port>\n');
  process.exit(2);
}

const RESPONSE = Buffer.from(
  `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nConnection: keep-alive\r\n\r\n${'b'.repeat(100)}`,
  'latin1',
);
const CRLFCRLF = Buffer.from('\r\n\r\n');


const server = net.createServer({ noDelay: true }, (socket) => {
  let pending = null;
  socket.on('data', (chunk) => {
    let buf = pending === null ? chunk : Buffer.concat([pending, chunk]);
    pending = null;
    let at = 0;
    let answers = 0;
    while (at < buf.length) {
      const end = buf.indexOf(CRLFCRLF, at);
      if (end === -1) break;
      const head = buf.latin1Slice(at, end);
      const space = head.indexOf(' ');
      if (space <= 0 || head.indexOf(' HTTP/1.', space + 1) === -1) {
        socket.destroy();
        return;
      }
      const next = end + 4 + contentLength(head);
      if (next > buf.length) break;
      at = next;
      answers++;
    }
    if (at < buf.length) pending = buf.subarray(at);
    if (answers === 1) socket.write(RESPONSE);
    else if (answers > 1) socket.write(Buffer.concat(Array.from({ length: answers }, () => RESPONSE)));
  });
  socket.on('error', () => socket.destroy());
});

server.listen(port, values.host, () => {
  process.stdout.write(JSON.stringify({ level: 'info', msg: 'bare net server listening', port }) + '\n');
});

exitWithParent([server]);
