// Payloads of the queue change-event messages (types 82-83, src/events/queue-event-service.ts):
// a member's interest in queues' events (the same versioned whole-set form as the map interest
// of event-payloads.ts), and the batches of events a queue's owner sends to the interested
// members. Pure encode/decode pairs; decoders throw GridError('BAD_REQUEST') naming the field.

import { GridError } from '../core/errors.js';
import { Latin1, type WireValue } from './codec.js';
import * as f from './fields.js';

export const QUEUE_EVENT_TYPES = ['added', 'removed', 'cleared'] as const;
export type QueueEventTypeName = (typeof QUEUE_EVENT_TYPES)[number];

export interface QueueEventPayload {
  readonly queueName: string;
  readonly partitionId: number;
  readonly epoch: number;
  readonly sequence: number;
  readonly type: QueueEventTypeName;
  readonly item: { readonly value: string; readonly contentType: string | undefined } | undefined;
  readonly count: number;
}

/** Values per event in a batch: queue, partition, epoch, sequence, type, item, its content type, count. */
const STRIDE = 8;

export function encodeQueueEvents(events: readonly QueueEventPayload[]): WireValue {
  const out: WireValue[] = new Array<WireValue>(events.length * STRIDE);
  let i = 0;
  for (const e of events) {
    out[i++] = e.queueName;
    out[i++] = e.partitionId;
    out[i++] = e.epoch;
    out[i++] = e.sequence;
    out[i++] = QUEUE_EVENT_TYPES.indexOf(e.type);
    out[i++] = e.item === undefined ? null : new Latin1(e.item.value);
    out[i++] = e.item?.contentType ?? null;
    out[i++] = e.count;
  }
  return out;
}

export function decodeQueueEvents(v: WireValue): QueueEventPayload[] {
  const t = f.tuple(v, 'queue events');
  if (t.length % STRIDE !== 0) throw new GridError('BAD_REQUEST', `queue events: ${t.length} values is not a whole number of ${STRIDE}-value events`);
  const out: QueueEventPayload[] = [];
  for (let i = 0; i < t.length; i += STRIDE) {
    const typeIndex = f.int(t, i + 4, 'event type');
    const type = QUEUE_EVENT_TYPES[typeIndex];
    if (type === undefined) throw new GridError('BAD_REQUEST', `queue events: unknown event type ${typeIndex}`);
    const partitionId = f.int(t, i + 1, 'partition id');
    if (partitionId < 0 || partitionId >= 271) throw new GridError('BAD_REQUEST', `queue events: partition id ${partitionId} out of range`);
    out.push({
      queueName: f.str(t, i, 'queue name'),
      partitionId,
      epoch: f.num(t, i + 2, 'epoch'),
      sequence: f.num(t, i + 3, 'sequence'),
      type,
      item: t[i + 5] === null ? undefined : { value: f.latin1(t, i + 5, 'item'), contentType: f.optStr(t, i + 6, 'item content type') },
      count: f.int(t, i + 7, 'count'),
    });
  }
  return out;
}
