// The per-connection state both HTTP paths keep (node:http's and Grid's own): whether a
// request is being worked on, the ones waiting behind it, and a framing error waiting for
// the answers before it. RestServer reads and sets it; each path's connection extends it.

import type { RestRequest, RestResponse } from './exchange.js';

/** Per-connection state both HTTP paths keep: whether a request is being worked on, and the ones waiting behind it. */
export class ConnectionState {
  busy = false;
  readonly queue: (() => void)[] = [];
  /** The response of the request being worked on. */
  current: RestResponse | undefined = undefined;
  /** The last response handed out on this connection (answers go out in this order). */
  last: RestResponse | undefined = undefined;
  /** A raw error answer to send, and then close, once every earlier request is answered. */
  pendingError: string | undefined = undefined;
  /** The last request handed over (a parse error after it is inside its body when it is incomplete). */
  lastReq: RestRequest | undefined = undefined;
  /** Set when the parser died inside lastReq's body: that request answers with this itself. */
  bodyError: { status: number; reason: string } | undefined = undefined;
  /** Abandon the body being read now (set while readBody waits). */
  abortBody: (() => void) | undefined = undefined;
}
