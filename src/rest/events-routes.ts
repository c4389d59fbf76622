// GET /grid/rest/maps/<map>/events: a map's change events as Server-Sent Events, from any member
// (a cluster-wide subscription on the event bus). Each event has `id: <partition>.<epoch>.<sequence>`,
// `event: <type>` and `data:` JSON (key, partition, and with ?values=true the values as text or
// base64 with their content types; a key that is not a String as `keyData`, its serialized
// Data in base64); ?prefix= keeps the String keys that start with it; a comment every
// heartbeat. The stream owns its socket: a consumer that leaves more than MAX_UNSENT_BYTES
// unread is cut off with a reason, so it never holds the writers or the member's memory.
// Under /hazelcast/ the path stays Hazelcast's: the entry whose key is "events".

import type { Socket } from 'node:net';
import { GridError } from '../core/errors.js';
import { restContentType } from '../client/data.js';
import type { MapChangeEvent } from '../events/event-service.js';
import { keyDataOf, textOfStoreKey } from '../map/map-service.js';
import type { RestDeps } from './context.js';
import { rawHeader } from './headers.js';
import { getEntry } from './maps-routes.js';
import { JournalFeed, type FeedOutput } from './journal-feed.js';
import type { Request } from './route-kit.js';
import { serveStream, sharedFrames, type StreamSink } from './sse-stream.js';

export { MAX_UNSENT_BYTES } from './sse-stream.js';
/** Seconds between heartbeat comments, unless ?heartbeat= says otherwise (1..300). */
const DEFAULT_HEARTBEAT_S = 15;

interface StreamOptions {
  readonly values: boolean;
  readonly prefix: string | undefined;
  readonly heartbeatMs: number;
}

function parseQuery(url: string): StreamOptions {
  const q = url.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  let values = false;
  let prefix: string | undefined;
  let heartbeatMs = DEFAULT_HEARTBEAT_S * 1000;
  for (const [name, v] of params) {
    if (name === 'values') {
      if (v !== 'true' && v !== 'false' && v !== '') throw new GridError('BAD_REQUEST', `values=${v}: true or false`);
      values = v !== 'false';
    } else if (name === 'prefix') prefix = v;
    else if (name === 'heartbeat') {
      const s = Number(v);
      if (!Number.isInteger(s) || s < 1 || s > 300) throw new GridError('BAD_REQUEST', `heartbeat=${v}: whole seconds from 1 to 300`);
      heartbeatMs = s * 1000;
    } else throw new GridError('BAD_REQUEST', `unknown parameter ${name} (values, prefix, heartbeat)`);
  }
  return { values, prefix, heartbeatMs };
}

/** A value as JSON fields: text when its content type is text, else base64. */
export function valueFields(name: string, v: { value: string; contentType: string | undefined } | undefined): Record<string, string> {
  if (v === undefined) return {};
  const ct = restContentType(v.contentType) ?? v.contentType;
  const bytes = Buffer.from(v.value, 'latin1');
  const text = ct !== undefined && (ct.startsWith('text/') || ct.startsWith('application/json'));
  return {
    [name]: text ? bytes.toString('utf8') : bytes.toString('base64'),
    ...(text ? {} : { [`${name}Encoding`]: 'base64' }),
    ...(ct === undefined ? {} : { [`${name}ContentType`]: ct }),
  };
}

/** One event as its SSE frame (`id`: a journaled stream's position, else the event's own). */
export function sseFrame(e: MapChangeEvent, values: boolean, id = `${e.partitionId}.${e.epoch}.${e.sequence}`): string {
  const data: Record<string, unknown> = { partition: e.partitionId };
  if (e.key !== undefined) {
    // A key that is not a String (a Hazelcast client's Long, byte[], object) as its serialized Data.
    const text = textOfStoreKey(e.key);
    if (text !== undefined) data.key = text;
    else data.keyData = keyDataOf(e.key).toString('base64');
  }
  if (e.type === 'cleared') data.count = e.count;
  if (values) Object.assign(data, valueFields('value', e.newValue), valueFields('oldValue', e.oldValue));
  return `id: ${id}\nevent: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Subscribers of one map on this member share an event's frame. */
const frameOf = sharedFrames(sseFrame);

export function mapEvents(r: Request, d: RestDeps, [mapName]: readonly string[]): Promise<void> | void {
  const url = r.req.url ?? '';
  if (!url.startsWith('/grid/')) return getEntry(r, d, [mapName!, 'events']) as Promise<void> | void;
  const events = d.events;
  if (events === undefined) throw new GridError('UNSUPPORTED', 'change streams are not available on this member');
  const opts = parseQuery(url);
  const resumeFrom = rawHeader(r.req, 'last-event-id');
  const socket = r.req.socket;
  const passes = (e: MapChangeEvent): boolean => opts.prefix === undefined || e.key === undefined || textOfStoreKey(e.key)?.startsWith(opts.prefix) === true;
  // A map with an event journal: ids are stream positions and Last-Event-ID resumes (journal-feed.ts).
  const journaled = events.journal?.journaled(mapName!) === true;
  let feed: JournalFeed | undefined;
  // Head, heartbeat, reset, cut and the one socket write per turn with its unsent-bytes budget: sse-stream.ts.
  return serveStream(r, d.logger, {
    heartbeatMs: opts.heartbeatMs,
    what: { map: mapName! },
    // The reset comes first (a map without a journal cannot resume), then the events that arrived while the subscription was made.
    ...(journaled ? {} : { resetReason: 'this member keeps no event journal: events since that id cannot be replayed; read the map again' }),
    subscribe: (sink) => {
      if (journaled) feed = new JournalFeed(events.journal!, mapName!, resumeFrom, feedOutput(socket, sink, passes, opts.values), Date.now());
      return events.subscribe({
        mapName: mapName!,
        localOnly: false,
        event: (e) => {
          if (feed !== undefined) feed.live(e);
          else if (passes(e)) sink.write(frameOf(e, opts.values));
        },
        ended: (reason) => sink.cut(reason),
        lost: (pid) => (feed !== undefined ? feed.lost(pid) : sink.write(`event: lost\ndata: ${JSON.stringify({ partition: pid, reason: 'events of this partition may have been lost (its owner changed without handing them over)' })}\n\n`)),
      });
    },
    started: () => {
      if (feed !== undefined) void feed.start();
    },
  });
}

/** A journaled stream's output: filtered events with their positions, and replays paced by the socket. */
function feedOutput(socket: Socket, sink: StreamSink, passes: (e: MapChangeEvent) => boolean, values: boolean): FeedOutput {
  return {
    // A filtered-out event still moves the position: the next id covers it.
    event: (e, id) => {
      if (passes(e)) sink.write(sseFrame(e, values, id));
    },
    raw: (frame) => sink.write(frame),
    cut: (reason) => sink.cut(reason),
    over: () => sink.over() || socket.destroyed,
    drained: (bytes) =>
      socket.writableLength < bytes || socket.destroyed
        ? Promise.resolve()
        : new Promise((resolve) => {
            const done = (): void => {
              socket.off('drain', done);
              socket.off('close', done);
              resolve();
            };
            socket.on('drain', done);
            socket.on('close', done);
          }),
  };
}
