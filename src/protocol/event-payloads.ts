// Payloads of the change-event messages (types 80-81, src/events/): a member's interest in maps'
// events, and the batches of events an owner sends to the interested members. Pure
// encode/decode pairs like payloads.ts; decoders throw GridError('BAD_REQUEST') naming the field.

import { GridError } from '../core/errors.js';
import { Latin1, type WireValue } from './codec.js';
import * as f from './fields.js';

// ------------------------------------------------------------------ EventInterest (80)

/** The whole set of maps whose events a member wants, versioned: a later version replaces an earlier one, an older one is ignored. */
export interface EventInterestPayload {
  readonly version: number;
  readonly maps: readonly string[];
}

export function encodeEventInterest(p: EventInterestPayload): WireValue {
  return [p.version, [...p.maps]];
}

export function decodeEventInterest(v: WireValue): EventInterestPayload {
  const t = f.tuple(v, 'event interest');
  return { version: f.num(t, 0, 'version'), maps: f.strings(t, 1, 'maps') };
}

// ------------------------------------------------------------------ MapEvents (81)

export interface EventValue {
  readonly value: string;
  readonly contentType: string | undefined;
}

export const MAP_EVENT_TYPES = ['added', 'updated', 'removed', 'evicted', 'expired', 'cleared'] as const;
export type MapEventTypeName = (typeof MAP_EVENT_TYPES)[number];

export interface MapEventPayload {
  readonly mapName: string;
  readonly partitionId: number;
  readonly epoch: number;
  readonly sequence: number;
  readonly type: MapEventTypeName;
  readonly key: string | undefined;
  readonly oldValue: EventValue | undefined;
  readonly newValue: EventValue | undefined;
  readonly count: number;
}

/** Values per event in a batch: map, partition, epoch, sequence, type, key, old value, its type, new value, its type, count. */
const STRIDE = 11;

export function encodeMapEvents(events: readonly MapEventPayload[]): WireValue {
  const out: WireValue[] = new Array<WireValue>(events.length * STRIDE);
  let i = 0;
  for (const e of events) {
    out[i++] = e.mapName;
    out[i++] = e.partitionId;
    out[i++] = e.epoch;
    out[i++] = e.sequence;
    out[i++] = MAP_EVENT_TYPES.indexOf(e.type);
    out[i++] = e.key ?? null;
    out[i++] = e.oldValue === undefined ? null : new Latin1(e.oldValue.value);
    out[i++] = e.oldValue?.contentType ?? null;
    out[i++] = e.newValue === undefined ? null : new Latin1(e.newValue.value);
    out[i++] = e.newValue?.contentType ?? null;
    out[i++] = e.count;
  }
  return out;
}

function value(t: readonly WireValue[], i: number, what: string): EventValue | undefined {
  if (t[i] === null) return undefined;
  return { value: f.latin1(t, i, what), contentType: f.optStr(t, i + 1, `${what} content type`) };
}

export function decodeMapEvents(v: WireValue): MapEventPayload[] {
  const t = f.tuple(v, 'map events');
  if (t.length % STRIDE !== 0) throw new GridError('BAD_REQUEST', `map events: ${t.length} values is not a whole number of ${STRIDE}-value events`);
  const out: MapEventPayload[] = [];
  for (let i = 0; i < t.length; i += STRIDE) {
    const typeIndex = f.int(t, i + 4, 'event type');
    const type = MAP_EVENT_TYPES[typeIndex];
    if (type === undefined) throw new GridError('BAD_REQUEST', `map events: unknown event type ${typeIndex}`);
    const partitionId = f.int(t, i + 1, 'partition id');
    if (partitionId < 0 || partitionId >= 271) throw new GridError('BAD_REQUEST', `map events: partition id ${partitionId} out of range`);
    out.push({
      mapName: f.str(t, i, 'map name'),
      partitionId,
      epoch: f.num(t, i + 2, 'epoch'),
      sequence: f.num(t, i + 3, 'sequence'),
      type,
      key: f.optStr(t, i + 5, 'key'),
      oldValue: value(t, i + 6, 'old value'),
      newValue: value(t, i + 8, 'new value'),
      count: f.int(t, i + 10, 'count'),
    });
  }
  return out;
}

/** An epoch of a structure's events and the last sequence used in it. */
export interface EventTerm {
  epoch: number;
  sequence: number;
}

/**
 * The terms a migration hands to a partition's new owner (the replica data `map-events` and
 * `queue-events`): [name, epoch, sequence, ...], one triple per map or queue of the partition.
 */
export function decodeEventTerms(v: WireValue, what: string, nameField: string): [string, EventTerm][] {
  const t = f.tuple(v, what);
  const terms: [string, EventTerm][] = [];
  for (let i = 0; i + 2 < t.length; i += 3) terms.push([f.str(t, i, nameField), { epoch: f.num(t, i + 1, 'epoch'), sequence: f.num(t, i + 2, 'sequence') }]);
  return terms;
}
