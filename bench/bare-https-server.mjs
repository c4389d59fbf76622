// Baseline of the TLS bench (bench/tls.mjs): the cheapest node:https server. Every request gets
// 200 with a constant 100-byte body on a keep-alive connection once its body is drained.
//
//   node bench/bare-https-server.mjs --port 5701 --key key.pem --cert cert.pem
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitWithParent } from './bare-common.mjs';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' }, key: { type: 'string' }, cert: { type: 'string' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port <= 0 || !values.key || !values.cert) {
  process.stderr.write('usage: node bench/bare-https-server.mjs --port <port> --key <pem> --cert <pem>\n');
  process.exit(2);
}

const BODY = Buffer.alloc(100, 'b');
const HEADERS = { 'Content-Type': 'text/plain', 'Content-Length': String(BODY.length) };

const server = https.createServer({ key: readFileSync(values.key), cert: readFileSync(values.cert) }, (req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, values.host, () => {
  process.stdout.write(JSON.stringify({ level: 'info', msg: 'bare https server listening', port }) + '\n');
});

exitWithParent([server]);
