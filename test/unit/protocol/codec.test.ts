import { describe, expect, it } from 'vitest';
import { GridError } from '../../../src/core/errors.js';
import {
  decodeValue,
  encodeValue,
  Latin1,
  MAX_VALUE_DEPTH,
  ValueReader,
  ValueWriter,
  type WireValue,
} from '../../../src/protocol/codec.js';
import { prng } from '../../support/prng.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const toHex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');


/** Runs `fn` and returns the GridError it throws (failing the test on anything else). */
function gridErrorOf(fn: () => unknown): GridError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GridError) return e;
    throw new Error(`expected a GridError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a GridError, nothing was thrown');
}

/**
 * Structural equality as the wire sees it: numbers by Object.is (so -0 and NaN count),
 * Latin1 by class and content, byte arrays by content, objects by keys IN ORDER.
 */
function expectSame(actual: WireValue, expected: WireValue, path = '$'): void {
  if (typeof expected === 'number') {
    expect(Object.is(actual, expected), `${path}: ${String(actual)} vs ${expected}`).toBe(true);
  } else if (expected === null || typeof expected !== 'object') {
    expect(actual, path).toBe(expected);
  } else if (expected instanceof Latin1) {
    expect(actual, path).toBeInstanceOf(Latin1);
    expect((actual as Latin1).s, path).toBe(expected.s);
  } else if (expected instanceof Uint8Array) {
    expect(Buffer.isBuffer(actual), `${path} decodes as a Buffer`).toBe(true);
    expect(toHex(actual as Uint8Array), path).toBe(toHex(expected));
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual), path).toBe(true);
    const a = actual as readonly WireValue[];
    expect(a.length, path).toBe(expected.length);
    expected.forEach((item: WireValue, i: number) => expectSame(a[i] as WireValue, item, `${path}[${i}]`));
  } else {
    expect(Object.getPrototypeOf(actual), path).toBe(Object.prototype);
    const a = actual as { readonly [k: string]: WireValue };
    const e = expected as { readonly [k: string]: WireValue };
    expect(Object.keys(a), path).toEqual(Object.keys(e));
    for (const k of Object.keys(e)) expectSame(a[k] as WireValue, e[k] as WireValue, `${path}.${k}`);
  }
}

function roundTrip(v: WireValue): void {
  const bytes = encodeValue(v);
  expectSame(decodeValue(bytes), v);
  // Encoding what was decoded gives the same bytes: nothing is lost either way.
  expect(toHex(encodeValue(decodeValue(bytes)))).toBe(toHex(bytes));
}

// The wire format, pinned. A change here breaks every member of an older release.
const VECTORS: [string, WireValue, string][] = [
  ['null', null, '00'],
  ['false', false, '01'],
  ['true', true, '02'],
  ['int32 0', 0, '03 00000000'],
  ['int32 1', 1, '03 00000001'],
  ['int32 -1', -1, '03 ffffffff'],
  ['int32 max', 2147483647, '03 7fffffff'],
  ['int32 min', -2147483648, '03 80000000'],
  ['int32 0x01020304', 0x01020304, '03 01020304'],
  ['float64 2^31', 2147483648, '04 41e0000000000000'],
  ['float64 -2^31-1', -2147483649, '04 c1e0000000200000'],
  ['float64 -0', -0, '04 8000000000000000'],
  ['float64 1.5', 1.5, '04 3ff8000000000000'],
  ['float64 NaN', NaN, '04 7ff8000000000000'],
  ['float64 Infinity', Infinity, '04 7ff0000000000000'],
  ['float64 -Infinity', -Infinity, '04 fff0000000000000'],
  ['float64 MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER, '04 433fffffffffffff'],
  ['string empty', '', '05 00000000'],
  ['string ascii', 'hi', '05 00000002 6869'],
  ['string BMP', 'é€', '05 00000005 c3a9 e282ac'],
  ['string astral', '😀', '05 00000004 f09f9880'],
  ['string 17 chars (long path)', 'abcdefghijklmnopé', '05 00000012 6162636465666768696a6b6c6d6e6f70 c3a9'],
  ['Latin1 empty', new Latin1(''), '06 00000000'],
  ['Latin1', new Latin1('\xff\x00a\xe9'), '06 00000004 ff0061e9'],
  ['bytes empty', Buffer.alloc(0), '07 00000000'],
  ['bytes', Buffer.from([1, 2, 0xff]), '07 00000003 0102ff'],
  ['array empty', [], '08 00000000'],
  ['array', [1, 'a', null], '08 00000003 03 00000001 05 00000001 61 00'],
  ['object empty', {}, '09 00000000'],
  ['object', { a: 1, b: [true] }, '09 00000002 00000001 61 03 00000001 00000001 62 08 00000001 02'],
  ['object key order kept', { z: null, a: false }, '09 00000002 00000001 7a 00 00000001 61 01'],
  ['object UTF-8 key', { 'ké': 0 }, '09 00000001 00000003 6bc3a9 03 00000000'],
];

/** A value that uses every tag, nested, for the truncation and fuzz loops. */
const COMPOSITE: WireValue = {
  name: 'custömer-😀',
  n: [0, -1, 2147483647, -2147483648, 2147483648, -0, 0.1, NaN, -Infinity],
  flags: [true, false, null],
  raw: new Latin1('k\xff\x00y'),
  bin: Buffer.from([0, 1, 2, 253, 254, 255]),
  deep: { a: { b: [[], {}, ['x']] } },
  '': '',
};

describe('value codec: pinned byte vectors', () => {
  it.each(VECTORS)('%s encodes to its pinned bytes and back', (_name, value, bytes) => {
    expect(toHex(encodeValue(value))).toBe(toHex(hex(bytes)));
    expectSame(decodeValue(hex(bytes)), value);
  });

  it('encodes a plain Uint8Array like a Buffer and decodes it as a Buffer', () => {
    expect(toHex(encodeValue(Uint8Array.of(1, 2, 0xff)))).toBe('070000000301' + '02ff');
    expect(Buffer.isBuffer(decodeValue(hex('07 00000001 aa')))).toBe(true);
  });

  it('decodes from a Uint8Array view that is not a Buffer and does not start its ArrayBuffer', () => {
    const encoded = encodeValue(COMPOSITE);
    const backing = new Uint8Array(encoded.length + 10).fill(0xee);
    backing.set(encoded, 3);
    const view = new Uint8Array(backing.buffer, 3, encoded.length);
    expectSame(decodeValue(view), COMPOSITE);
  });

  it('writes lone surrogates as U+FFFD, like Buffer does', () => {
    for (const s of ['\ud800', 'x\udc00y', 'a'.repeat(20) + '\ud83d']) {
      const bytes = encodeValue(s);
      expect(toHex(bytes)).toBe(toHex(encodeValue(Buffer.from(s, 'utf8').toString('utf8'))));
      expect(decodeValue(bytes)).toBe(s.replace(/[\ud800-\udfff]/g, '\ufffd'));
    }
    expect(toHex(encodeValue('\ud800'))).toBe('0500000003efbfbd');
  });
});

describe('value codec: round trips', () => {
  it('keeps integers at the int32 boundaries as int32 and the ones beyond as float64', () => {
    for (const n of [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31 - 2, -(2 ** 31) + 1]) {
      expect(encodeValue(n)[0], String(n)).toBe(0x03);
      roundTrip(n);
    }
    for (const n of [2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE]) {
      expect(encodeValue(n)[0], String(n)).toBe(0x04);
      roundTrip(n);
    }
  });

  it('keeps -0, NaN, Infinity and fractions exact', () => {
    for (const n of [-0, NaN, Infinity, -Infinity, 0.1, -1.5, 1e-300, Math.PI]) {
      expect(encodeValue(n)[0], String(n)).toBe(0x04);
      roundTrip(n);
    }
  });

  it('round-trips unicode strings of every length class', () => {
    const strings = [
      '',
      'a',
      'é',
      '日本語',
      '😀',
      '👩‍👩‍👧',
      'a'.repeat(12),
      'a'.repeat(11) + 'é',
      'é' + 'a'.repeat(12),
      'a'.repeat(13),
      '\u0000\u007f'.repeat(6),
      'a'.repeat(16),
      'a'.repeat(15) + 'é',
      'a'.repeat(16) + 'é',
      '😀'.repeat(8),
      'mixed ascii, ünïcödé and 😀 astral '.repeat(50),
      '\u0000\u007f\u0080\u07ff\u0800\uffff',
      '\ud7ff\ue000\ufffd',
    ];
    for (const s of strings) roundTrip(s);
  });

  it('round-trips a string longer than the worst-case reservation limit', () => {
    const s = 'ab€😀'.repeat(300_000); // 1.5 M UTF-16 units, 3.3 MB of UTF-8
    roundTrip(s);
    expect(encodeValue(s).length).toBe(5 + Buffer.byteLength(s));
  });

  it('round-trips Latin1 with all 256 byte values, short and long', () => {
    let all = '';
    for (let b = 0; b < 256; b++) all += String.fromCharCode(b);
    const bytes = encodeValue(new Latin1(all));
    expect(bytes.length).toBe(5 + 256);
    for (let b = 0; b < 256; b++) expect(bytes[5 + b]).toBe(b);
    roundTrip(new Latin1(all));
    for (let b = 0; b < 256; b++) roundTrip(new Latin1(String.fromCharCode(b)));
    // A two-byte JS string whose chars all fit a byte still encodes as one byte per char.
    const twoByte = ('\u0100' + all).slice(1);
    expect(toHex(encodeValue(new Latin1(twoByte)))).toBe(toHex(bytes));
  });

  it('round-trips empty and 1 MiB byte arrays', () => {
    roundTrip(new Uint8Array(0));
    const big = Buffer.alloc(1 << 20);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >>> 8)) & 0xff;
    roundTrip(big);
  });

  it('round-trips nested arrays and objects, the composite value, and a large array', () => {
    roundTrip(COMPOSITE);
    roundTrip([[[]], [{}], [{ a: [{ b: [null] }] }]]);
    roundTrip(Array.from({ length: 10_000 }, (_, i) => (i % 3 === 0 ? i : i % 3 === 1 ? `s${i}` : { i })));
  });

  it('keeps integer-like keys, odd keys and an own "__proto__" key as data', () => {
    roundTrip({ 2: 'two', 1: 'one', b: 0, '': 1, 'a.b': 2, constructor: 3 });
    const withProto = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as WireValue;
    const decoded = decodeValue(encodeValue(withProto)) as Record<string, WireValue>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.keys(decoded)).toEqual(['__proto__', 'x']);
    expect(decoded['__proto__']).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('decodes objects with a null prototype as encoded plain objects', () => {
    const o = Object.create(null) as Record<string, WireValue>;
    o['k'] = 'v';
    expect(toHex(encodeValue(o))).toBe(toHex(encodeValue({ k: 'v' })));
  });

  it('accepts the nesting limit and no more', () => {
    const nest = (depth: number, leaf: WireValue, wrap: (v: WireValue) => WireValue): WireValue => {
      let v = leaf;
      for (let i = 0; i < depth; i++) v = wrap(v);
      return v;
    };
    const arr = (v: WireValue): WireValue => [v];
    const obj = (v: WireValue): WireValue => ({ k: v });
    let alt = 0;
    const mixed = (v: WireValue): WireValue => (alt++ % 2 === 0 ? [v] : { k: v });
    for (const wrap of [arr, obj, mixed]) {
      roundTrip(nest(MAX_VALUE_DEPTH, 1, wrap));
      const err = gridErrorOf(() => encodeValue(nest(MAX_VALUE_DEPTH + 1, 1, wrap)));
      expect(err.code).toBe('INTERNAL');
    }
    // Hand-built, since the encoder refuses it: 65 nested one-item arrays around a null.
    const tooDeep = Buffer.concat([...Array.from({ length: MAX_VALUE_DEPTH + 1 }, () => hex('08 00000001')), hex('00')]);
    const err = gridErrorOf(() => decodeValue(tooDeep));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain(`deeper than ${MAX_VALUE_DEPTH}`);
    expect(err.message).toContain(`offset ${MAX_VALUE_DEPTH * 5}`);
    // Deeply nested empty containers are fine: depth counts containers, not bytes.
    expectSame(decodeValue(tooDeep.subarray(5)), nest(MAX_VALUE_DEPTH - 1, [null], arr));
  });
});

describe('value codec: writer and reader', () => {
  it('grows from a tiny size hint without losing bytes', () => {
    for (const hint of [undefined, 1, 16, 300, 1 << 16]) {
      const w = new ValueWriter(hint);
      w.write(COMPOSITE);
      w.write('x'.repeat(1000));
      w.write(Buffer.alloc(5000, 7));
      const out = w.finish();
      expect(out.length).toBe(w.length);
      const r = new ValueReader(out);
      expectSame(r.read(), COMPOSITE);
      expect(r.read()).toBe('x'.repeat(1000));
      expectSame(r.read(), Buffer.alloc(5000, 7));
      expect(r.offset).toBe(out.length);
    }
  });

  it('writes raw fields big-endian and patches a length afterwards', () => {
    const w = new ValueWriter(1);
    w.writeU32(0);
    w.writeU8(0xab);
    w.writeU16(0x1234);
    w.writeI32(-2);
    w.writeF64(1.5);
    w.writeUtf8('é');
    w.writeLatin1('\xff');
    w.writeBytes(Uint8Array.of(9));
    w.patchU32(0, 0xdeadbeef);
    expect(toHex(w.finish())).toBe('deadbeef' + 'ab' + '1234' + 'fffffffe' + '3ff8000000000000' + '00000002c3a9' + '00000001ff' + '0000000109');
    expect(gridErrorOf(() => w.patchU32(w.length - 3, 0)).code).toBe('INTERNAL');
  });

  it('reads consecutive values inside a range of a larger buffer and reports its offset', () => {
    const a = encodeValue('first');
    const b = encodeValue([1, 2]);
    const buf = Buffer.concat([hex('ffff'), a, b, hex('ffff')]);
    const r = new ValueReader(buf, 2, 2 + a.length + b.length);
    expect(r.read()).toBe('first');
    expect(r.offset).toBe(2 + a.length);
    expect(r.read()).toEqual([1, 2]);
    expect(r.offset).toBe(2 + a.length + b.length);
    // The range end is a hard end, even though the buffer goes on.
    const err = gridErrorOf(() => r.read());
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('offset');
    // A value cut by the range end fails although its bytes exist past it.
    expect(gridErrorOf(() => new ValueReader(buf, 2, 2 + a.length - 1).read()).code).toBe('BAD_REQUEST');
  });

  it('refuses a reader range outside the buffer', () => {
    const buf = Buffer.alloc(4);
    for (const [o, e] of [[-1, 4], [0, 5], [3, 2]] as const) {
      expect(gridErrorOf(() => new ValueReader(buf, o, e)).code).toBe('INTERNAL');
    }
  });
});

describe('value codec: decoding errors', () => {
  it.each(VECTORS)('%s: every truncation throws BAD_REQUEST', (_name, value) => {
    const bytes = encodeValue(value);
    for (let n = 0; n < bytes.length; n++) {
      const err = gridErrorOf(() => decodeValue(bytes.subarray(0, n)));
      expect(err.code, `prefix ${n}`).toBe('BAD_REQUEST');
    }
  });

  it('every truncation of the composite value throws BAD_REQUEST with an offset', () => {
    const bytes = encodeValue(COMPOSITE);
    for (let n = 0; n < bytes.length; n++) {
      const err = gridErrorOf(() => decodeValue(bytes.subarray(0, n)));
      expect(err.code, `prefix ${n}`).toBe('BAD_REQUEST');
      expect(err.message, `prefix ${n}`).toMatch(/offset \d+/);
      // A fresh copy guards against reads past the view into the rest of the buffer.
      expect(gridErrorOf(() => decodeValue(Buffer.from(bytes.subarray(0, n)))).code).toBe('BAD_REQUEST');
    }
  });

  it('names the truncated part and its offset', () => {
    expect(gridErrorOf(() => decodeValue(hex(''))).message).toBe(
      'input ends at offset 0 in the middle of a value tag (needs 1 bytes at offset 0)',
    );
    expect(gridErrorOf(() => decodeValue(hex('08 00000002 03 000000'))).message).toBe(
      'input ends at offset 9 in the middle of an int32 (needs 4 bytes at offset 6)',
    );
    expect(gridErrorOf(() => decodeValue(hex('05 00000005 6162'))).message).toBe(
      'the length of a string at offset 1 is 5 bytes but only 2 bytes follow',
    );
  });

  it('throws on every unknown tag, at top level and nested', () => {
    for (let tag = 0x0a; tag <= 0xff; tag++) {
      const t = tag.toString(16).padStart(2, '0');
      const err = gridErrorOf(() => decodeValue(hex(t)));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toBe(`unknown value tag 0x${t} at offset 0`);
    }
    expect(gridErrorOf(() => decodeValue(hex('08 00000002 00 7f'))).message).toBe('unknown value tag 0x7f at offset 6');
  });

  it('throws on trailing bytes', () => {
    const err = gridErrorOf(() => decodeValue(hex('00 00')));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toBe('1 trailing bytes after the value at offset 1');
    expect(gridErrorOf(() => decodeValue(Buffer.concat([encodeValue(COMPOSITE), hex('02')]))).code).toBe('BAD_REQUEST');
  });

  it('refuses lengths and counts past the end before allocating for them', () => {
    for (const bad of [
      '05 ffffffff',
      '06 ffffffff 00',
      '07 80000000 0000',
      '08 ffffffff 00 00',
      '08 00000003 00 00', // three items promised, two present
      '09 ffffffff',
      '09 00000001 0000', // an entry needs at least 5 bytes
      '09 00000001 00000005 6b 00', // key longer than what follows
    ]) {
      const err = gridErrorOf(() => decodeValue(hex(bad)));
      expect(err.code, bad).toBe('BAD_REQUEST');
    }
  });

  it('never throws anything but BAD_REQUEST on mutated or random input', () => {
    const rnd = prng(0x5eed);
    const valid = encodeValue(COMPOSITE);
    for (let round = 0; round < 3000; round++) {
      const bytes = Buffer.from(valid);
      const flips = 1 + Math.floor(rnd() * 4);
      for (let f = 0; f < flips; f++) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      try {
        decodeValue(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(GridError);
        expect((e as GridError).code).toBe('BAD_REQUEST');
      }
    }
    for (let round = 0; round < 3000; round++) {
      const bytes = Buffer.alloc(1 + Math.floor(rnd() * 40));
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rnd() * 12); // mostly valid tags
      try {
        decodeValue(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(GridError);
        expect((e as GridError).code).toBe('BAD_REQUEST');
      }
    }
  });
});

describe('value codec: encoding errors', () => {
  const notWire: [string, unknown][] = [
    ['undefined', undefined],
    ['function', () => 1],
    ['bigint', 1n],
    ['symbol', Symbol('s')],
    ['Map', new Map()],
    ['Set', new Set()],
    ['Date', new Date(0)],
    ['class instance', new (class Thing {})()],
    ['Uint16Array', new Uint16Array(2)],
    ['ArrayBuffer', new ArrayBuffer(2)],
    ['nested undefined', { a: 1, b: undefined }],
    ['undefined in an array', [1, undefined]],
    ['Map in an array in an object', { a: [new Map()] }],
  ];
  it.each(notWire)('refuses %s with INTERNAL', (_name, v) => {
    const err = gridErrorOf(() => encodeValue(v as WireValue));
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toMatch(/^cannot encode /);
  });

  it('names the JS type it refuses', () => {
    expect(gridErrorOf(() => encodeValue(new Map() as unknown as WireValue)).message).toBe(
      'cannot encode a Map as a wire value',
    );
    expect(gridErrorOf(() => encodeValue(undefined as unknown as WireValue)).message).toBe(
      'cannot encode undefined as a wire value',
    );
  });

  it('refuses a cyclic value instead of overflowing the stack', () => {
    const cyclic: WireValue[] = [];
    cyclic.push(cyclic);
    expect(gridErrorOf(() => encodeValue(cyclic)).code).toBe('INTERNAL');
  });

  it('refuses Latin1 strings with a char above 0xff, short and long', () => {
    for (const s of ['\u0100', 'abc€', 'a'.repeat(40) + '\u0100', 'a'.repeat(40) + '😀']) {
      const err = gridErrorOf(() => encodeValue(new Latin1(s)));
      expect(err.code).toBe('INTERNAL');
      expect(err.message).toContain('above 0xff');
    }
  });
});

describe('value codec: memory', () => {
  it('decodes byte arrays as copies that do not share the input memory', () => {
    const input = encodeValue({ bin: Buffer.from('abcdef'), big: Buffer.alloc(100_000, 1) });
    const decoded = decodeValue(input) as { bin: Buffer; big: Buffer };
    expect(decoded.bin.buffer).not.toBe(input.buffer);
    expect(decoded.big.buffer).not.toBe(input.buffer);
    input.fill(0);
    expect(decoded.bin.toString()).toBe('abcdef');
    expect(decoded.big.every((b) => b === 1)).toBe(true);
  });

  it('encodes byte arrays by value: changing the source afterwards does not change the bytes', () => {
    const src = Buffer.from('xyz');
    const encoded = encodeValue(src);
    src.fill(0);
    expect(toHex(encoded)).toBe('0700000003' + '78797a');
  });
});
