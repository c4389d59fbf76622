// GET /grid/rest/queues/<queue>/events: a queue's change events as Server-Sent Events, from any
// member (a subscription on the cluster-wide queue bus): `added` (an offer), `removed` (an item
// consumed by a poll or drain, or removed) and `cleared` (with the count), each with
// `id: <partition>.<epoch>.<sequence>` and `data:` JSON (partition, and with ?values=true the
// item as text or base64 with its content type). Heartbeats, `event: lost`, `event: reset` and
// the slow-consumer cut as the map stream (both on sse-stream.ts). Under /hazelcast/ the path stays
// Hazelcast's: a poll whose timeout is "events".

import { GridError } from '../core/errors.js';
import type { QueueChangeEvent } from '../events/queue-event-service.js';
import type { RestDeps } from './context.js';
import { valueFields } from './events-routes.js';
import { parseTimeoutSeconds } from './paths.js';
import { pollItem } from './queues-routes.js';
import type { Request } from './route-kit.js';
import { serveStream, sharedFrames } from './sse-stream.js';

/** Seconds between heartbeat comments, unless ?heartbeat= says otherwise (1..300). */
const DEFAULT_HEARTBEAT_S = 15;

function parseQuery(url: string): { values: boolean; heartbeatMs: number } {
  const q = url.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  let values = false;
  let heartbeatMs = DEFAULT_HEARTBEAT_S * 1000;
  for (const [name, v] of params) {
    if (name === 'values') {
      if (v !== 'true' && v !== 'false' && v !== '') throw new GridError('BAD_REQUEST', `values=${v}: true or false`);
      values = v !== 'false';
    } else if (name === 'heartbeat') {
      const s = Number(v);
      if (!Number.isInteger(s) || s < 1 || s > 300) throw new GridError('BAD_REQUEST', `heartbeat=${v}: whole seconds from 1 to 300`);
      heartbeatMs = s * 1000;
    } else throw new GridError('BAD_REQUEST', `unknown parameter ${name} (values, heartbeat)`);
  }
  return { values, heartbeatMs };
}

/** One queue event as its SSE frame. */
export function queueSseFrame(e: QueueChangeEvent, values: boolean): string {
  const data: Record<string, unknown> = { partition: e.partitionId };
  if (e.type === 'cleared') data.count = e.count;
  else if (values) Object.assign(data, valueFields('value', e.item));
  return `id: ${e.partitionId}.${e.epoch}.${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Subscribers of one queue on this member share an event's frame. */
const frameOf = sharedFrames(queueSseFrame);

export function queueEvents(r: Request, d: RestDeps, [queueName]: readonly string[]): Promise<void> | void {
  const url = r.req.url ?? '';
  // As the poll route would bind it: "events" is no number of seconds (400, as before this route).
  if (!url.startsWith('/grid/')) return pollItem(r, d, [queueName!, String(parseTimeoutSeconds('events'))]) as Promise<void> | void;
  const bus = d.queueEvents;
  if (bus === undefined) throw new GridError('UNSUPPORTED', 'queue change streams are not available on this member');
  const opts = parseQuery(url);
  return serveStream(r, d.logger, {
    heartbeatMs: opts.heartbeatMs,
    what: { queue: queueName! },
    resetReason: 'this member keeps no event journal: events since that id cannot be replayed; read the queue again',
    subscribe: (sink) =>
      bus.subscribe({
        queueName: queueName!,
        event: (e) => sink.write(frameOf(e, opts.values)),
        lost: () => sink.write(`event: lost\ndata: ${JSON.stringify({ reason: 'events of this queue may have been lost (its owner changed without handing them over)' })}\n\n`),
        ended: (reason) => sink.cut(reason),
      }),
  });
}
