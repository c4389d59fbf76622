// Writing answers. Errors have an empty body and a one-line `X-Grid-Error` reason; JSON is
// compact `application/json`; stored values go out as the latin1 bytes they were stored as.

import type { RestResponse } from './exchange.js';
import type { StoredValue } from './context.js';
import { headerSafe } from './paths.js';

// Frozen: node only reads the list (a mutation would throw in a test, not corrupt answers).
const NO_CONTENT_HEADERS = Object.freeze(['Content-Length', '0']) as string[];

export function sendEmpty(res: RestResponse, status: number, reason?: string, extra?: readonly string[]): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (reason === undefined && extra === undefined) {
    // The common case (200 of a write, 204): one shared header list, nothing allocated.
    if (res.answerLatin1 !== undefined) {
      res.answerLatin1(status, undefined, '');
      return;
    }
    res.writeHead(status, NO_CONTENT_HEADERS);
  } else {
    const headers: string[] = ['Content-Length', '0'];
    if (reason !== undefined) headers.push('X-Grid-Error', headerSafe(reason));
    if (extra !== undefined) headers.push(...extra);
    res.writeHead(status, headers);
  }
  res.end();
}

export function sendJson(res: RestResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(text))]);
  res.end(text);
}

export function sendText(res: RestResponse, text: string, contentType = 'text/plain'): void {
  res.writeHead(200, ['Content-Type', contentType, 'Content-Length', String(Buffer.byteLength(text))]);
  res.end(text);
}

/** A stored value: its bytes, and its Content-Type when it was stored with one. */
export function sendValue(res: RestResponse, v: StoredValue): void {
  if (res.answerLatin1 !== undefined) {
    res.answerLatin1(200, v.contentType, v.value);
    return;
  }
  const len = String(v.value.length);
  res.writeHead(200, v.contentType === undefined ? ['Content-Length', len] : ['Content-Type', v.contentType, 'Content-Length', len]);
  res.end(v.value, 'latin1');
}
