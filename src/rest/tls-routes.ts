// POST rest/tls/reload (Grid's own): the member rereads its TLS files now, as on SIGHUP, and
// answers the certificate in use per endpoint, or why the new files were refused (the old
// certificate then stays in use). docs/security.md#rotation.

import { GridError } from '../core/errors.js';
import type { RestDeps } from './context.js';
import { sendJson } from './respond.js';
import type { Request } from './route-kit.js';

export function reloadTls(r: Request, d: RestDeps): void {
  const endpoints = d.reloadTls?.() ?? {};
  if (Object.keys(endpoints).length === 0) throw new GridError('NOT_ENABLED', 'TLS is not enabled on this member');
  const failed = Object.values(endpoints).some((e) => 'error' in e);
  sendJson(r.res, { status: failed ? 'fail' : 'success', endpoints });
}
