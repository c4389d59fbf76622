// Header lookups straight from `rawHeaders`: reading `req.headers` makes node build a
// lower-cased object of every header, which the hot path does not need.

import type { IncomingMessage } from 'node:http';

/** The first value of header `lowerName` (given in lower case), or undefined. */
export function rawHeader(req: IncomingMessage, lowerName: string): string | undefined {
  const raw = req.rawHeaders;
  const len = lowerName.length;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === len && (name === lowerName || name.toLowerCase() === lowerName)) return raw[i + 1];
  }
  return undefined;
}
