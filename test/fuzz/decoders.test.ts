// In-process fuzz of the pure decoders that sit on every member socket: the value codec, the
// frame reader (whole, in random chunks, byte by byte), the field readers and the payload
// decoders of payloads.ts. Whatever the bytes, they either decode or throw
// GridError('BAD_REQUEST'); nothing else escapes, and the chunking never changes the outcome.

import { describe, expect, it } from 'vitest';
import { GridError } from '../../src/core/errors.js';
import { ValueReader, encodeValue, type WireValue } from '../../src/protocol/codec.js';
import * as fields from '../../src/protocol/fields.js';
import { FrameReader, type Frame } from '../../src/protocol/frame.js';
import { DEFAULT_SEED, Rng, caseSeed, chunkBytes, mutateMany, randomValue } from './engine.js';
import { ALL_MESSAGES, authPrefix, fuzzFrame, mutatePayload, validPayload, wrongPayload, type MemberFuzzContext } from './member-input.js';

const CASES = Number(process.env.FUZZ_DECODER_CASES ?? 3000);
const SEED = Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const ctx: MemberFuzzContext = { clusterName: 'dev', memberUuids: [], forbidden: [] };

/** Runs fn; returns 'ok' or the error, failing on anything but a BAD_REQUEST GridError. */
function outcome(fn: () => unknown, what: string): 'ok' | GridError {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof GridError && e.code === 'BAD_REQUEST') return e;
    throw new Error(`${what}: expected a BAD_REQUEST GridError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
  }
}

function decodeAll(bytes: Uint8Array): WireValue[] {
  const r = new ValueReader(bytes);
  const out: WireValue[] = [];
  while (r.offset < bytes.length) out.push(r.read());
  return out;
}

/** Frames as comparable bytes, plus how the stream ended. */
function readStream(chunks: readonly Uint8Array[], preamble: boolean): { frames: string[]; error: string | undefined } {
  const reader = new FrameReader({ expectPreamble: preamble, maxFrameBytes: 1 << 20 });
  const frames: string[] = [];
  const show = (f: Frame): string => `${f.kind}/${f.type}/${f.callId}/${encodeValue(f.payload).toString('hex')}`;
  for (const c of chunks) {
    let got: Frame[];
    try {
      got = reader.push(c);
    } catch (e) {
      if (!(e instanceof GridError && e.code === 'BAD_REQUEST')) throw e;
      // A failed reader refuses more input with a GridError, never anything else.
      expect(() => reader.push(Buffer.of(0))).toThrow(GridError);
      return { frames, error: e.message };
    }
    frames.push(...got.map(show));
  }
  return { frames, error: undefined };
}

function fuzzStream(rng: Rng): Buffer {
  const parts: Buffer[] = [rng.chance(0.5) ? authPrefix(ctx, rng) : Buffer.alloc(0)];
  const n = 1 + rng.int(4);
  for (let i = 0; i < n; i++) parts.push(fuzzFrame(rng, ctx));
  const b = Buffer.concat(parts);
  return rng.chance(0.3) ? mutateMany(rng, b, 1 + rng.int(3)) : b;
}

describe('fuzz: pure decoders', () => {
  it(`value codec: ${CASES} random and mutated inputs decode or fail with BAD_REQUEST; re-encoding is stable`, () => {
    for (let i = 0; i < CASES; i++) {
      const rng = new Rng(caseSeed(SEED, i));
      const v = randomValue(rng, 4);
      const bytes = encodeValue(v);
      // Encoding is idempotent through a decode (lone surrogates become U+FFFD once, then stay).
      const once = encodeValue(decodeAll(bytes)[0] ?? null);
      expect(encodeValue(decodeAll(once)[0] ?? null).equals(once), `case ${i}`).toBe(true);
      const mutated = mutateMany(rng, bytes, 1 + rng.int(4), [bytes]);
      outcome(() => decodeAll(mutated), `codec case ${i} (seed ${SEED}) on ${mutated.toString('hex').slice(0, 200)}`);
    }
  });

  it(`frame reader: ${CASES} streams give the same frames and the same error whole, chunked and byte by byte`, () => {
    for (let i = 0; i < CASES; i++) {
      const rng = new Rng(caseSeed(SEED ^ 0x5a5a, i));
      const bytes = fuzzStream(rng);
      const preamble = bytes[0] === 0 && rng.chance(0.9);
      const what = `frame case ${i} (seed ${SEED}): ${bytes.toString('hex').slice(0, 300)}`;
      // A chunk that holds a bad frame is refused whole (the connection closes), so good frames
      // before it in the same chunk may be dropped: fewer frames, never other ones, same error.
      const whole = readStream([bytes], preamble);
      // Byte by byte is the reference; long streams go in 7-byte steps (still splitting every field).
      const step = bytes.length <= 600 ? 1 : 7;
      const byByte = readStream(Array.from({ length: Math.ceil(bytes.length / step) }, (_, k) => bytes.subarray(k * step, (k + 1) * step)), preamble);
      const chunked = readStream(chunkBytes(rng, bytes), preamble);
      for (const r of [whole, chunked]) {
        expect(r.error, what).toBe(byByte.error);
        // Long streams go in 7-byte steps, so the reference may drop frames too (seed 902, case
        // 31811): whichever read fewer frames read a prefix of the other's.
        const [fewer, more] = r.frames.length <= byByte.frames.length ? [r, byByte] : [byByte, r];
        expect(more.frames.slice(0, fewer.frames.length), what).toEqual(fewer.frames);
        if (r.error === undefined) expect(r.frames, what).toEqual(byByte.frames);
      }
    }
  });

  it('field readers: wrong payloads of every message fail with BAD_REQUEST, valid ones read', () => {
    const readers: ((t: readonly WireValue[], i: number) => unknown)[] = [
      (t, i) => fields.str(t, i, 'x'),
      (t, i) => fields.optStr(t, i, 'x'),
      (t, i) => fields.int(t, i, 'x'),
      (t, i) => fields.num(t, i, 'x'),
      (t, i) => fields.bool(t, i, 'x'),
      (t, i) => fields.latin1(t, i, 'x'),
      (t, i) => fields.arr(t, i, 'x'),
      (t, i) => fields.strings(t, i, 'x'),
    ];
    for (let i = 0; i < CASES; i++) {
      const rng = new Rng(caseSeed(SEED ^ 0xf1e1d, i));
      const spec = rng.pick(ALL_MESSAGES);
      const payload = rng.chance(0.5) ? wrongPayload(rng, spec.request) : validPayload(rng, spec);
      outcome(() => {
        const t = fields.tuple(payload, 'payload');
        rng.pick(readers)(t, rng.int(8));
      }, `fields case ${i} (${spec.name})`);
    }
  });

  it(`payload decoders: the fuzz's valid payloads of every message and answer decode; ${CASES} mutated ones decode or fail with BAD_REQUEST`, () => {
    const payloads = ALL_MESSAGES.flatMap((m) => [{ name: m.name, p: m.request }, ...(m.answer === undefined ? [] : [{ name: `${m.name} answer`, p: m.answer }])]);
    for (let i = 0; i < CASES; i++) {
      const rng = new Rng(caseSeed(SEED ^ 0x9a71, i));
      const { name, p } = rng.pick(payloads);
      const valid = p.valid(rng);
      expect(outcome(() => p.decode(valid), `payload case ${i} (${name}, valid)`), `payload case ${i}: valid ${name} ${JSON.stringify(valid)}`).toBe('ok');
      const mutated = mutatePayload(rng, valid);
      outcome(() => p.decode(mutated), `payload case ${i} (${name}, mutated)`);
    }
  });
});
