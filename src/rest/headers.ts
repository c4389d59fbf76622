// Header lookups straight from `rawHeaders`: reading `req.headers` makes node build a
// lower-cased object of every header, which the hot path does not need. And the one piece of
// content negotiation Grid does: `Accept` preferring text over JSON (GET /health).

import type { RestRequest } from './exchange.js';

/** The first value of header `lowerName` (given in lower case), or undefined. */
export function rawHeader(req: RestRequest, lowerName: string): string | undefined {
  const raw = req.rawHeaders;
  const len = lowerName.length;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === len && (name === lowerName || asciiLowerEquals(name, lowerName))) return raw[i + 1];
  }
  return undefined;
}

/**
 * `name` lower-cased equals `lower` (same length), without making the lower-cased string.
 * Header names are tokens (both parsers refuse anything else): ASCII case folding is all.
 */
function asciiLowerEquals(name: string, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) c |= 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

// Whether an `Accept` header ranks `text/plain` above `application/json` (RFC 9110 §12.5.1:
// each type takes the q of its most specific matching range, `text/plain` over `text/*` over
// `*/*`). A tie, `*/*` alone (curl's default) or no header at all is false: JSON stays the
// default answer, and only a client that asks for text gets text.
export function prefersPlainText(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return qualityOf(accept, 'text', 'plain') > qualityOf(accept, 'application', 'json');
}

/** The q an Accept header gives `type/sub` (0 when no range matches it). */
function qualityOf(accept: string, type: string, sub: string): number {
  let best = -1;
  let q = 0;
  for (const range of accept.split(',')) {
    const [mediaRange = '', ...params] = range.split(';');
    const [t = '', s = ''] = mediaRange.trim().toLowerCase().split('/');
    const specificity = t === type && s === sub ? 2 : t === type && s === '*' ? 1 : t === '*' && s === '*' ? 0 : -1;
    if (specificity <= best) continue;
    let rangeQ = 1;
    for (const p of params) {
      const [name = '', value = ''] = p.split('=');
      if (name.trim().toLowerCase() !== 'q') continue;
      const v = value.trim();
      // A malformed q is ignored (the range keeps q=1) rather than refusing the request.
      rangeQ = /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/.test(v) ? Number(v) : 1;
    }
    best = specificity;
    q = rangeQ;
  }
  return q;
}
