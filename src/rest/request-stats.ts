// REST request counts and latencies, kept in plain numbers: one array slot per route label,
// method and status, and one histogram per route label and method. A request costs two clock
// reads, a few string checks and a handful of additions; the metrics layer reads the arrays
// at scrape time. Route labels are a small fixed set derived from the path, never the path
// itself (map and queue names, keys: unbounded).

import { PlainHistogram, type MetricsRegistrar } from '../core/metrics.js';
import { HEALTH, HEALTH_SUB, MAPS, QUEUES, REST } from './route-paths.js';

/** The route labels, in index order. */
export const ROUTE_LABELS = [
  'maps', // rest/maps/<map>/<key>, rest/maps/<map>
  'queues', // rest/queues/<queue> offers and rest/queues/<queue>/<timeout> polls
  'queue_stats', // rest/queues/<queue>/size and /stats
  'health', // health, health/*
  'cluster', // rest/cluster, rest/partitions, rest/instance, rest/management/cluster/*
  'admin', // rest/log-level*, rest/config/*, rest/license, rest/tls/*
  'wan', // rest/wan, rest/wan/*
  'cp', // rest/cp-subsystem/*, rest/cp/*
  'metrics', // metrics
  'unknown', // anything else (answered 400), a path without prefix, an unsupported method
] as const;
export type RouteLabel = (typeof ROUTE_LABELS)[number];

const R = Object.fromEntries(ROUTE_LABELS.map((l, i) => [l, i])) as Record<RouteLabel, number>;

export const METHOD_LABELS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'other'] as const;

/** Status codes with a slot of their own; anything else counts as `other`. `none`: no answer was sent (the client left first). */
const STATUSES = [200, 204, 400, 403, 404, 408, 409, 413, 417, 431, 500, 501, 503] as const;
const STATUS_LABELS: readonly string[] = ['none', ...STATUSES.map(String), 'other'];
const STATUS_OTHER = STATUS_LABELS.length - 1;
/** Status code -> slot (0: none; codes outside 100-599 are `other`). */
const STATUS_SLOT = new Uint8Array(600).fill(STATUS_OTHER);
STATUS_SLOT[0] = 0;
STATUSES.forEach((s, i) => (STATUS_SLOT[s] = i + 1));

/** Latency buckets in seconds: from 100 µs (a GET on a member is well under 1 ms) to 60 s (long polls). */
export const LATENCY_BUCKETS_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The route label of a path after its prefix (`rest` as stripPrefix returns it; undefined: no prefix). */
export function routeLabelOf(rest: string | undefined): RouteLabel {
  if (rest === undefined) return 'unknown';
  if (rest.startsWith(MAPS)) return 'maps';
  if (rest.startsWith(QUEUES)) {
    return rest.endsWith('/size') || rest.endsWith('/size/') || rest.endsWith('/stats') || rest.endsWith('/stats/') ? 'queue_stats' : 'queues';
  }
  if (rest === HEALTH || rest.startsWith(HEALTH_SUB)) return 'health';
  if (rest === 'metrics' || rest === 'metrics/') return 'metrics';
  if (!rest.startsWith(REST)) return 'unknown';
  const p = rest.slice(REST.length);
  if (p === 'cp' || p.startsWith('cp/') || p === 'cp-subsystem' || p.startsWith('cp-subsystem/')) return 'cp';
  if (p === 'wan' || p.startsWith('wan/')) return 'wan';
  if (p === 'cluster' || p === 'cluster/' || p === 'partitions' || p === 'partitions/' || p === 'instance' || p === 'instance/' || p.startsWith('management/cluster/')) {
    return 'cluster';
  }
  if (p === 'log-level' || p.startsWith('log-level/') || p.startsWith('config/') || p === 'license' || p === 'license/' || p.startsWith('tls/')) return 'admin';
  return 'unknown';
}

export function methodIndexOf(method: string | undefined): number {
  switch (method) {
    case 'GET':
      return 0;
    case 'HEAD':
      return 1;
    case 'POST':
      return 2;
    case 'PUT':
      return 3;
    case 'DELETE':
      return 4;
    default:
      return 5;
  }
}

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
