// REST request counts and latencies, kept in plain numbers: one array slot per route label,
// method and status, and one histogram per route label and method. A request costs two clock
// reads, a few string checks and a handful of additions; the metrics layer reads the arrays
// at scrape time. Route labels are a small fixed set (route-kit.ts) that the route table gives
// each path, never the path itself (map and queue names, keys: unbounded).

import { PlainHistogram, type MetricsRegistrar } from '../core/metrics.js';
import { METHOD_LABELS, ROUTE_LABELS, methodIndexOf, type RouteLabel } from './route-kit.js';

export { METHOD_LABELS, ROUTE_LABELS, methodIndexOf, type RouteLabel } from './route-kit.js';
export { routeLabelOf } from './routes.js';

const R = Object.fromEntries(ROUTE_LABELS.map((l, i) => [l, i])) as Record<RouteLabel, number>;


/**
 * The status codes REST answers, each with a slot of its own; anything else counts as `other`.
 * `none`: no answer was sent (the client left first). No 501: only the client protocol raises
 * UNSUPPORTED, so status.ts's 501 never reaches an HTTP answer. docs/metrics.md lists these.
 */
const STATUSES = [200, 204, 400, 403, 404, 408, 409, 413, 417, 431, 500, 503] as const;
export const STATUS_LABELS: readonly string[] = ['none', ...STATUSES.map(String), 'other'];
const STATUS_OTHER = STATUS_LABELS.length - 1;
/** Status code -> slot (0: none; codes outside 100-599 are `other`). */
const STATUS_SLOT = new Uint8Array(600).fill(STATUS_OTHER);
STATUS_SLOT[0] = 0;
STATUSES.forEach((s, i) => (STATUS_SLOT[s] = i + 1));

/** Latency buckets in seconds: from 100 µs (a GET on a member is well under 1 ms) to 60 s (long polls). */
export const LATENCY_BUCKETS_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];


const M = METHOD_LABELS.length;
const S = STATUS_LABELS.length;

export class RequestStats {
  /** [route][method][status slot] -> requests. */
  private readonly counts = new Float64Array(ROUTE_LABELS.length * M * S);
  /** [route][method] -> latency histogram, created on the first request. */
  private readonly latency: (PlainHistogram | undefined)[] = new Array<PlainHistogram | undefined>(ROUTE_LABELS.length * M);

  /** One request answered (or abandoned): `status` 0 when no answer was sent. */
  record(route: RouteLabel, methodIndex: number, status: number, seconds: number): void {
    const rm = R[route] * M + methodIndex;
    const slot = status >= 0 && status < 600 ? STATUS_SLOT[status]! : STATUS_OTHER;
    this.counts[rm * S + slot]! += 1;
    (this.latency[rm] ??= new PlainHistogram(LATENCY_BUCKETS_SECONDS)).observe(seconds);
  }

  /** Requests counted so far for a route label, method and status (for tests). */
  count(route: RouteLabel, method: string, status: number): number {
    return this.counts[(R[route] * M + methodIndexOf(method)) * S + STATUS_SLOT[status]!]!;
  }

  /**
   * Requests answered so far over every route and method, and their latency counts summed per
   * bucket into `into` (LATENCY_BUCKETS_SECONDS.length + 1 slots, overwritten): what the
   * metrics history differences once a second.
   */
  totals(into: Float64Array): number {
    into.fill(0);
    let n = 0;
    for (const h of this.latency) {
      if (h === undefined) continue;
      for (let i = 0; i < h.counts.length; i++) {
        into[i]! += h.counts[i]!;
        n += h.counts[i]!;
      }
    }
    return n;
  }

  register(r: MetricsRegistrar): void {
    r.counter(
      { name: 'grid_rest_requests_total', help: 'REST requests answered by this member, by route label, method and status code', labelNames: ['route', 'method', 'status'] },
      (report) => {
        for (let i = 0; i < this.counts.length; i++) {
          const n = this.counts[i]!;
          if (n === 0) continue;
          const slot = i % S;
          const rm = (i - slot) / S;
          report(n, { route: ROUTE_LABELS[Math.floor(rm / M)]!, method: METHOD_LABELS[rm % M]!, status: STATUS_LABELS[slot]! });
        }
      },
    );
    r.histogram(
      {
        name: 'grid_rest_request_duration_seconds',
        help: 'Time from the start of a REST request (after its headers) to its answer, by route label and method; polls include their wait',
        labelNames: ['route', 'method'],
        buckets: LATENCY_BUCKETS_SECONDS,
      },
      (report) => {
        this.latency.forEach((h, rm) => {
          if (h !== undefined) report(h, { route: ROUTE_LABELS[Math.floor(rm / M)]!, method: METHOD_LABELS[rm % M]! });
        });
      },
    );
  }
}
