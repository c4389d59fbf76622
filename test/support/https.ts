// HTTPS requests for the TLS tests: node:https with keep-alive agents (one per test file),
// trusting the test CA, with an optional client certificate.

import https from 'node:https';
import { readFileSync } from 'node:fs';

export interface HttpsResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

export interface HttpsClient {
  request(method: string, path: string, body?: string | Buffer, headers?: Record<string, string>): Promise<HttpsResponse>;
  close(): void;
}

export function httpsClient(port: number, opts: { ca?: string; cert?: string; key?: string; timeoutMs?: number } = {}): HttpsClient {
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 8,
    ...(opts.ca !== undefined ? { ca: readFileSync(opts.ca) } : {}),
    ...(opts.cert !== undefined ? { cert: readFileSync(opts.cert) } : {}),
    ...(opts.key !== undefined ? { key: readFileSync(opts.key) } : {}),
  });
  return {
    request: (method, path, body, headers = {}) =>
      new Promise<HttpsResponse>((resolve, reject) => {
        const req = https.request({ host: '127.0.0.1', port, method, path, agent, headers, timeout: opts.timeoutMs ?? 10_000 }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within the deadline`)));
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}
