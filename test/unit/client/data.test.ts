import { describe, expect, it } from 'vitest';
import { ClientContentType, dataOfStored, decodeRestValue, keyOf, restContentType, restValueData, storedFormOf, stringData, TypeId } from '../../../src/client/data.js';
import { GridError } from '../../../src/core/errors.js';
import { hzData, hzSerializer } from './hz-client.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const ser = hzSerializer();
const clientData = (v: unknown): Buffer => ser.toData(v).toBuffer();

describe('keys', () => {
  it('a String key is the string (the research note\'s vectors)', () => {
    expect(clientData('k1').toString('hex')).toBe('00000000fffffff5000000026b31');
    expect(keyOf(hex('00000000fffffff5000000026b31'))).toBe('k1');
    expect(keyOf(hex('00000000fffffff5 00000000'))).toBe('');
    expect(keyOf(hex('00000000fffffff5 00000006 68c3a96c6c6f'))).toBe('héllo');
    expect(stringData('héllo').equals(clientData('héllo'))).toBe(true);
  });

  it('any other key type is its whole Data (map-keys.ts), as is a String with a PartitionAware hash', () => {
    expect(keyOf(clientData(1))).toBe('\u0000' + clientData(1).toString('latin1'));
    expect(keyOf(clientData(Buffer.from([1, 2])))).toBe('\u0000' + clientData(Buffer.from([1, 2])).toString('latin1'));
    const aware = hex('0000002afffffff5000000026b31');
    expect(keyOf(aware)).toBe('\u0000' + aware.toString('latin1'));
    // A String whose text starts with U+0000 is its Data form too (the form REST gives the same text).
    expect(keyOf(clientData('\u0000x'))).toBe('\u0000' + clientData('\u0000x').toString('latin1'));
  });

  it('refuses malformed strings and Data shorter than a header', () => {
    const err = (f: () => unknown): GridError => {
      try {
        f();
      } catch (e) {
        return e as GridError;
      }
      throw new Error('no error');
    };
    expect(err(() => keyOf(hex('00000000fffffff5 00000003 6b31'))).message).toMatch(/length 3 does not match/);
    expect(err(() => keyOf(hex('00000000fffffff5 ffffffff'))).message).toMatch(/null String key/);
    expect(err(() => keyOf(hex('00000000fffffff5'))).message).toMatch(/without its length/);
    expect(err(() => keyOf(hex('000000'))).message).toMatch(/shorter than the 8-byte header/);
  });
});

describe('values between binary clients and REST', () => {
  it('String, byte[] and JSON are stored as text or bytes under marker types REST serves as Hazelcast does', () => {
    expect(storedFormOf(clientData('héllo'))).toEqual({ value: Buffer.from('héllo').toString('latin1'), contentType: ClientContentType.STRING });
    expect(storedFormOf(clientData(Buffer.from([1, 2, 3])))).toEqual({ value: '\u0001\u0002\u0003', contentType: ClientContentType.BYTE_ARRAY });
    expect(storedFormOf(clientData({ a: 1 }))).toEqual({ value: '{"a":1}', contentType: ClientContentType.JSON });
    expect(restContentType(ClientContentType.STRING)).toBe('text/plain');
    expect(restContentType(ClientContentType.BYTE_ARRAY)).toBe('application/binary');
    expect(restContentType(ClientContentType.JSON)).toBe('application/json');
    expect(restContentType(ClientContentType.DATA)).toBe('application/binary');
    expect(restContentType('text/plain')).toBe('text/plain');
    expect(restContentType(undefined)).toBeUndefined();
  });

  it('other types are kept as their whole Data, byte-exact', () => {
    for (const v of [1, 1.5, true, -7]) {
      const d = clientData(v);
      const s = storedFormOf(d);
      expect(s.contentType).toBe(ClientContentType.DATA);
      expect(Buffer.from(s.value, 'latin1').equals(d)).toBe(true);
      expect(dataOfStored(s.value, s.contentType).equals(d)).toBe(true);
    }
    expect(storedFormOf(clientData(1)).value).toBe(hex('00000000fffffff63ff0000000000000').toString('latin1'));
    // A PartitionAware value (non-zero hash) keeps its header too, whatever its type.
    const aware = hex('0000002afffffff5000000026b31');
    expect(storedFormOf(aware)).toEqual({ value: aware.toString('latin1'), contentType: ClientContentType.DATA });
  });

  it('client values come back to the client as written', () => {
    for (const v of ['v1', 'héllo', '', Buffer.from([0, 255]), { a: [1, 'x'] }, 2.5, false]) {
      const d = clientData(v);
      const s = storedFormOf(d);
      const back = dataOfStored(s.value, s.contentType);
      expect(back.equals(d)).toBe(true);
      expect(ser.toObject(hzData(back))).toEqual(v);
    }
  });

  it('a REST value is a RestValue (IDS -25/1) for the client: the research note\'s bytes', () => {
    const d = dataOfStored('hello', 'text/plain');
    expect(d.toString('hex')).toBe('00000000fffffffe01ffffffe7000000010000000568656c6c6f0000000a746578742f706c61696e');
    expect(ser.toObject(hzData(d))).toMatchObject({ value: 'hello', contentType: 'text/plain' });
    // No Content-Type: a null contentType.
    const noCt = dataOfStored('x', undefined);
    expect(noCt.subarray(-4).toString('hex')).toBe('ffffffff');
    expect(ser.toObject(hzData(noCt))).toMatchObject({ value: 'x', contentType: null });
  });

  it('a RestValue a client writes back is a REST value again; other identified types stay Data', () => {
    const rv = restValueData(Buffer.from('hello'), Buffer.from('text/plain'));
    expect(storedFormOf(rv)).toEqual({ value: 'hello', contentType: 'text/plain' });
    expect(storedFormOf(restValueData(Buffer.from('x'), null))).toEqual({ value: 'x', contentType: undefined });
    expect(decodeRestValue(rv.subarray(0, rv.length - 1))).toBeUndefined();
    const other = Buffer.from(rv);
    other.writeInt32BE(-24, 9); // another factory
    expect(storedFormOf(other).contentType).toBe(ClientContentType.DATA);
    // A content type only Grid's markers use cannot come from REST: kept as Data.
    const marker = restValueData(Buffer.from('x'), Buffer.from(ClientContentType.STRING, 'latin1'));
    expect(storedFormOf(marker).contentType).toBe(ClientContentType.DATA);
  });

  it('type ids are Hazelcast\'s', () => {
    expect(clientData('a').readInt32BE(4)).toBe(TypeId.STRING);
    expect(clientData(Buffer.alloc(1)).readInt32BE(4)).toBe(TypeId.BYTE_ARRAY);
    expect(clientData({}).readInt32BE(4)).toBe(TypeId.JSON);
  });
});
