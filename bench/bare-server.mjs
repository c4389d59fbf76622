// Baseline for bench/run.mjs: the cheapest possible node:http server.
// Every request, whatever its method/path/body, gets 200 with a constant
// 100-byte body on a keep-alive connection once the request body is drained.
//
//   node bench/bare-server.mjs --port 5701 [--host 127.0.0.1]
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: node bench/bare-server.mjs --port <port>\n');
  process.exit(2);
}

const BODY = Buffer.alloc(100, 'b');
const HEADERS = { 'Content-Type': 'text/plain', 'Content-Length': String(BODY.length) };

const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60_000;

server.listen(port, values.host, () => {
  process.stdout.write(JSON.stringify({ level: 'info', msg: 'bare server listening', port }) + '\n');
});

const stop = () => server.close(() => process.exit(0)).closeAllConnections();
process.on('SIGTERM', stop);
// Never outlive the harness (e.g. if it was SIGKILLed).
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) process.exit(0);
}, 1000).unref();
process.on('SIGINT', stop);
