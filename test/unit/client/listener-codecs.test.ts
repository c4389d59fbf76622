// Entry listener messages checked against the client's own codecs (hazelcast-client 5.7.0): the
// add/remove requests as the client encodes them, and Grid's entry events as the client decodes them.

import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../../src/client/codec.js';
import { encodeMessage, Flag, FrameReader } from '../../../src/client/frame.js';
import { decodeAddEntryListener, decodeRemoveEntryListener, encodeEntryEvent, EntryEventType, isListenerMessage, ListenerMessageId } from '../../../src/client/listener-codecs.js';
import { GridError } from '../../../src/core/errors.js';
import { hz, hzBytes, hzData, hzRead, hzUuid, type HzMessage } from './hz-client.js';

const key = Buffer.from('00000000fffffff5000000026b31', 'hex');
const value = Buffer.from('00000000fffffff5000000027631', 'hex');
const A = 'b079e8bf-f481-48b0-a39f-619eb432e1ef';

function decode(m: unknown) {
  const [msg] = new FrameReader().push(hzBytes(m as HzMessage, 9, -1));
  const h = requestHeader(msg!);
  return { type: h.type, msg: msg! };
}

describe('entry listener requests as the client encodes them', () => {
  it('MapAddEntryListener: name, includeValue, flags, localOnly', () => {
    for (const [inc, flags, local] of [
      [true, 1 | 2 | 4, true],
      [false, 16, false],
    ] as const) {
      const { type, msg } = decode(hz.mapAddEntryListener.encodeRequest!('m1', inc, flags, local));
      expect(type).toBe(ListenerMessageId.MapAddEntryListener);
      expect(isListenerMessage(type)).toBe(true);
      expect(decodeAddEntryListener(type, msg)).toEqual({ name: 'm1', key: undefined, includeValue: inc, flags, localOnly: local });
    }
  });

  it('MapAddEntryListenerToKey carries the key', () => {
    const { type, msg } = decode(hz.mapAddEntryListenerToKey.encodeRequest!('m2', hzData(key), true, 31, true));
    expect(type).toBe(ListenerMessageId.MapAddEntryListenerToKey);
    expect(decodeAddEntryListener(type, msg)).toEqual({ name: 'm2', key, includeValue: true, flags: 31, localOnly: true });
  });

  it('the predicate forms are refused as UNSUPPORTED', () => {
    for (const m of [
      hz.mapAddEntryListenerWithPredicate.encodeRequest!('m', hzData(value), true, 1, true),
      hz.mapAddEntryListenerToKeyWithPredicate.encodeRequest!('m', hzData(key), hzData(value), true, 1, true),
    ]) {
      const { type, msg } = decode(m);
      expect(isListenerMessage(type)).toBe(true);
      const e = (() => {
        try {
          decodeAddEntryListener(type, msg);
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(e).toBeInstanceOf(GridError);
      expect((e as GridError).code).toBe('UNSUPPORTED');
    }
  });

  it('MapRemoveEntryListener: name and registration id', () => {
    const { type, msg } = decode(hz.mapRemoveEntryListener.encodeRequest!('m3', hzUuid(A)));
    expect(type).toBe(ListenerMessageId.MapRemoveEntryListener);
    expect(decodeRemoveEntryListener(msg)).toEqual({ name: 'm3', registrationId: A });
  });

  it('a truncated add request is BAD_REQUEST', () => {
    const { type, msg } = decode(hz.mapAddEntryListener.encodeRequest!('m1', true, 1, true));
    const cut = [{ ...msg[0]!, content: msg[0]!.content.subarray(0, 18) }, ...msg.slice(1)];
    expect(() => decodeAddEntryListener(type, cut)).toThrow(/malformed/);
  });
});

describe('entry events as the client decodes them', () => {
  function handle(bytes: Buffer, toKey: boolean) {
    const m = hzRead(bytes);
    let got: unknown[] | undefined;
    const codec = toKey ? hz.mapAddEntryListenerToKey : hz.mapAddEntryListener;
    codec.handle!(m, (...args: unknown[]) => (got = args));
    return { m, got: got! };
  }
  const buf = (d: unknown): string | null => (d === null ? null : (d as { toBuffer(): Buffer }).toBuffer().toString('hex'));

  for (const toKey of [false, true]) {
    it(`an ${toKey ? 'on-key ' : ''}UPDATED event: key, value, old value, member, count, as an event frame`, () => {
      const bytes = encodeMessage(
        encodeEntryEvent({ correlationId: 41n, toKey, partitionId: 21, eventType: EntryEventType.UPDATED, memberUuid: A, affectedEntries: 1, key, value, oldValue: key }).frames,
      );
      expect(bytes.readUInt16LE(4) & Flag.IS_EVENT).toBe(Flag.IS_EVENT);
      const { m, got } = handle(bytes, toKey);
      expect(m.getMessageType()).toBe(toKey ? 0x011802 : 0x011902);
      expect(String(m.getCorrelationId())).toBe('41');
      expect(m.getPartitionId()).toBe(21);
      // (key, value, oldValue, mergingValue, eventType, uuid, numberOfAffectedEntries)
      expect([buf(got[0]), buf(got[1]), buf(got[2]), got[3], got[4], String(got[5]), got[6]]).toEqual([key.toString('hex'), value.toString('hex'), key.toString('hex'), null, 4, A, 1]);
    });
  }

  it('a CLEAR_ALL event: no key, no values, the number of entries', () => {
    const bytes = encodeMessage(
      encodeEntryEvent({ correlationId: 5n, toKey: false, partitionId: 3, eventType: EntryEventType.CLEAR_ALL, memberUuid: A, affectedEntries: 12, key: undefined, value: undefined, oldValue: undefined }).frames,
    );
    const { got } = handle(bytes, false);
    expect([got[0], got[1], got[2], got[3], got[4], got[6]]).toEqual([null, null, null, null, 64, 12]);
  });
});

describe('member uuid bytes', () => {
  it('an event with the uuid pre-encoded is the same bytes as one with its text', async () => {
    const { memberUuidBytes } = await import('../../../src/client/listener-codecs.js');
    const e = { correlationId: 1n, toKey: false, partitionId: 0, eventType: 1, affectedEntries: 1, key, value: undefined, oldValue: undefined };
    expect(encodeMessage(encodeEntryEvent({ ...e, memberUuid: memberUuidBytes(A) }).frames)).toEqual(encodeMessage(encodeEntryEvent({ ...e, memberUuid: A }).frames));
  });
});
