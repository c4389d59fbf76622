// Cross-site request refusal (docs/console.md#security): a web page on another site must not make
// a browser that can reach a member (or that holds console credentials) change anything on it.
// Browsers say where a request comes from in headers a page cannot set: `Sec-Fetch-Site`
// (every current browser) and `Origin` (every POST, DELETE, PUT, and cross-origin fetches).
// curl and scripts send neither and are never refused here. Pure: headers in, a reason out.

export interface CrossSiteHeaders {
  readonly secFetchSite: string | undefined;
  readonly secFetchMode: string | undefined;
  readonly origin: string | undefined;
  readonly host: string | undefined;
}

/**
 * Why a request is refused as cross-site, or undefined when it may go on. `safe`: a GET or
 * HEAD of an endpoint whose GET changes nothing (a queue poll's GET takes an item, so it is
 * not safe).
 *
 * - Anything a browser marks as coming from another origin is refused (`Sec-Fetch-Site`
 *   `cross-site` or `same-site`: another port of the same host is another origin), except a
 *   safe top-level navigation: a person following a link to a JSON endpoint.
 * - An HTML form submission (`Sec-Fetch-Mode: navigate` on a request that is not safe) is
 *   refused even from the same origin: the console never submits forms, it sends fetches.
 * - Without `Sec-Fetch-Site` (older browsers), an `Origin` that is not this member's own
 *   (its host and port equal to the `Host` header) refuses the request; `Origin: null`
 *   (sandboxed frames, some redirects) is never trusted.
 */
export function crossSiteRefusal(h: CrossSiteHeaders, safe: boolean): string | undefined {
  const site = h.secFetchSite?.trim().toLowerCase();
  const navigate = h.secFetchMode?.trim().toLowerCase() === 'navigate';
  if (site !== undefined) {
    if (site !== 'same-origin' && site !== 'none' && !(safe && navigate)) {
      return `cross-site request refused (Sec-Fetch-Site: ${site})`;
    }
    if (navigate && !safe && site !== 'none') return 'navigation refused: a form or link may not change state; the console sends such requests with fetch';
    return undefined;
  }
  if (h.origin === undefined) return undefined;
  const origin = h.origin.trim();
  if (origin === 'null') return 'cross-site request refused (Origin: null)';
  const host = hostOfOrigin(origin);
  if (host === undefined || h.host === undefined || host !== normalHost(h.host, origin.toLowerCase().startsWith('https:'))) {
    return `cross-site request refused (Origin ${origin} is not this member)`;
  }
  return undefined;
}

/** `host:port` of an origin (`scheme://host[:port]`), port made explicit, lower case. */
function hostOfOrigin(origin: string): string | undefined {
  const m = /^(https?):\/\/([^/?#]+)$/i.exec(origin);
  if (m === null) return undefined;
  return normalHost(m[2]!, m[1]!.toLowerCase() === 'https');
}

/** A Host header (or origin authority) with its port made explicit, lower case. */
function normalHost(host: string, https: boolean): string {
  const h = host.trim().toLowerCase();
  // An IPv6 literal keeps its brackets; a port follows the last `]` or the only `:`.
  const hasPort = h.startsWith('[') ? /\]:\d+$/.test(h) : h.includes(':');
  return hasPort ? h : `${h}:${https ? 443 : 80}`;
}
