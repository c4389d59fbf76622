// GET /metrics: the Prometheus scrape of every metric of the member.

import { GridError } from '../core/errors.js';
import type { RestDeps } from './context.js';
import { sendText } from './respond.js';
import type { Request } from './route-kit.js';

export function metrics(r: Request, d: RestDeps): Promise<void> {
  if (d.metrics === undefined) throw new GridError('NOT_ENABLED', 'metrics are disabled on this member (metrics enabled="false")');
  return d.metrics.scrape().then((m) => sendText(r.res, m.body, m.contentType));
}
