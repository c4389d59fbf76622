// The scan's pure parts: the cursor codec (round trips, every refusal), the page selection
// over a real EntrySlab (key order, prefix, exactly once across pages while the slab changes
// between and during walks, compactions under a walk), and the partition-page wire form.

import { describe, expect, it } from 'vitest';
import { configFromObject } from '../../../src/config/index.js';
import { ManualClock } from '../../../src/core/clock.js';
import { GridError } from '../../../src/core/errors.js';
import { MapService, type ScanPage, type ScanPosition } from '../../../src/map/map-service.js';
import { partitionIdOf } from '../../../src/partition/partitioning.js';
import { captureLogs, RecordingInvoker } from '../core/fakes.js';
import { EntrySlab } from '../../../src/map/entry-slab.js';
import { decodeScanResult, encodeScanResult, type PartitionPage } from '../../../src/map/map-scan.js';
import { decodeScanCursor, encodeScanCursor, MAX_CURSOR_CHARS, scanScope } from '../../../src/map/scan-cursor.js';
import { CHECK_EVERY, PageSelector, ScanWalk } from '../../../src/map/scan-page.js';
import { prng as mulberry32 } from '../../support/prng.js';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    expect((e as GridError).code).toBe('BAD_REQUEST');
    return (e as GridError).message;
  }
  throw new Error('expected a refusal');
}

describe('the scan cursor', () => {
  const scope = scanScope('m', undefined);

  it.each([
    { partitionId: 0, after: undefined },
    { partitionId: 270, after: undefined },
    { partitionId: 5, after: 'k1' },
    { partitionId: 17, after: 'ключ/🙂 with spaces' },
    { partitionId: 9, after: 'lone \uD800 surrogate' },
    { partitionId: 3, after: '' },
  ])('round-trips %o', (pos) => {
    const text = encodeScanCursor(pos, scope);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeScanCursor(text, scope)).toEqual(pos);
  });

  it('is pinned: version 1, partition, form, key, check (a change of format must be a new version)', () => {
    expect(encodeScanCursor({ partitionId: 21, after: 'k1' }, scope)).toBe('AQAVAWsxwDLt_w');
    expect(encodeScanCursor({ partitionId: 0, after: undefined }, scope)).toBe('AQAAADnmr3k');
  });

  it('refuses what it did not make, saying why', () => {
    const good = encodeScanCursor({ partitionId: 21, after: 'k1' }, scope);
    expect(refusal(() => decodeScanCursor('', scope))).toMatch(/bad cursor: empty/);
    expect(refusal(() => decodeScanCursor('a+b/', scope))).toMatch(/not base64url/);
    expect(refusal(() => decodeScanCursor('x'.repeat(MAX_CURSOR_CHARS + 1), scope))).toMatch(/longer than/);
    expect(refusal(() => decodeScanCursor('AQA', scope))).toMatch(/too short|canonical/);
    expect(refusal(() => decodeScanCursor(good, scanScope('m', 'p')))).toMatch(/another map or prefix/);
    expect(refusal(() => decodeScanCursor(good, scanScope('n', undefined)))).toMatch(/another map or prefix/);
    // Every single-character change of a good cursor is refused (or, at the last character's unused bits, not canonical).
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < good.length; i++) {
      for (const ch of alphabet) {
        if (ch === good[i]) continue;
        const changed = good.slice(0, i) + ch + good.slice(i + 1);
        expect(() => decodeScanCursor(changed, scope), changed).toThrow(GridError);
      }
    }
  });

  it('refuses a well-checked cursor of another version, partition or form', () => {
    // Built as the encoder would, with a field out of range, and a valid check over it.
    const forge = (bytes: number[]): string => {
      const body = Buffer.from(bytes);
      let h = 0x811c9dc5;
      for (const ch of scope) {
        const c = ch.charCodeAt(0);
        h = Math.imul(h ^ (c & 0xff), 0x01000193);
        h = Math.imul(h ^ (c >>> 8), 0x01000193);
      }
      for (const b of body) h = Math.imul(h ^ b, 0x01000193);
      const out = Buffer.alloc(body.length + 4);
      body.copy(out);
      out.writeUInt32BE(h >>> 0, body.length);
      return out.toString('base64url');
    };
    expect(forge([1, 0, 21, 1, 0x6b])).toBe(encodeScanCursor({ partitionId: 21, after: 'k' }, scope));
    expect(refusal(() => decodeScanCursor(forge([2, 0, 21, 0]), scope))).toMatch(/version 2/);
    expect(refusal(() => decodeScanCursor(forge([1, 1, 15, 0]), scope))).toMatch(/partition 271 does not exist/);
    expect(refusal(() => decodeScanCursor(forge([1, 0, 1, 7]), scope))).toMatch(/unknown form 7/);
    expect(refusal(() => decodeScanCursor(forge([1, 0, 1, 0, 0x61]), scope))).toMatch(/partition start with a key/);
    expect(refusal(() => decodeScanCursor(forge([1, 0, 1, 1, 0xff]), scope))).toMatch(/not UTF-8/);
    expect(refusal(() => decodeScanCursor(forge([1, 0, 1, 2, 0x61]), scope))).toMatch(/odd UTF-16/);
  });
});

describe('PageSelector', () => {
  it('keeps the smallest `limit` keys, each once, ascending', () => {
    const rnd = mulberry32(7);
    const keys = Array.from({ length: 500 }, () => `k${Math.floor(rnd() * 300)}`);
    const sel = new PageSelector(20);
    for (const k of keys) sel.offer(k);
    expect(sel.sorted()).toEqual([...new Set(keys)].sort().slice(0, 20));
    expect(sel.full).toBe(true);
    expect(sel.max).toBe([...new Set(keys)].sort()[19]);
  });
});

/** Every page of a slab from the start, with `between(page)` run between pages and `during` between steps. */
function pages(slab: EntrySlab, limit: number, prefix: string | undefined, step: number, between: (page: number) => void = () => undefined, during: () => void = () => undefined): string[] {
  const out: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const walk = new ScanWalk(slab, limit, after, prefix, () => true);
    while (!walk.step(step)) during();
    const keys = walk.selector.sorted().filter((k) => slab.find(k) >= 0);
    out.push(...keys);
    if (!walk.selector.full) return out;
    after = walk.selector.max;
    between(page);
  }
  throw new Error('no end');
}

describe('ScanWalk over an EntrySlab', () => {
  const fill = (n: number, wideEvery = 0): { slab: EntrySlab; keys: string[] } => {
    const slab = new EntrySlab(0);
    const keys: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = wideEvery > 0 && i % wideEvery === 0 ? `ключ-${i}` : `key-${i}`;
      keys.push(k);
      slab.put(k, `value-${i}`, undefined);
    }
    return { slab, keys };
  };

  it('returns every key once, in code-unit order, latin1 and UTF-16 keys alike, whatever the step', () => {
    const { slab, keys } = fill(1000, 7);
    for (const [limit, step] of [[1, 1], [13, 5], [100, 1000], [5000, 3]] as const) {
      expect(pages(slab, limit, undefined, step)).toEqual([...keys].sort());
    }
  });

  it('takes only keys with the prefix', () => {
    const { slab, keys } = fill(500);
    expect(pages(slab, 7, 'key-1', 11)).toEqual(keys.filter((k) => k.startsWith('key-1')).sort());
  });

  it('compares record keys as strings compare (no string made per record)', () => {
    const { slab } = fill(300, 3);
    const probes = ['', 'key-', 'key-10', 'key-99', 'ключ', 'ключ-3', 'z', '\uffff', 'key-1\u0000'];
    for (let r = slab.first(); r >= 0; r = slab.next(r)) {
      const k = slab.key(r);
      for (const p of probes) {
        expect(Math.sign(slab.compareKeyAt(r, p)), `${k} vs ${p}`).toBe(Math.sign(k < p ? -1 : k > p ? 1 : 0));
        expect(slab.keyStartsWith(r, p), `${k} starts with ${p}`).toBe(k.startsWith(p));
      }
    }
  });

  it('returns a key that lives through the scan exactly once while others come and go between and during pages (compactions included)', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rnd = mulberry32(seed);
      const { slab, keys } = fill(2000);
      const stable = keys.filter((_, i) => i % 2 === 0);
      const churn = keys.filter((_, i) => i % 2 === 1);
      let layouts = slab.layoutVersion;
      const mutate = (): void => {
        for (let i = 0; i < 40; i++) {
          const k = churn[Math.floor(rnd() * churn.length)]!;
          if (rnd() < 0.5) slab.remove(k);
          // Values of another size: records move to the end (and compactions follow).
          else slab.put(k, 'x'.repeat(Math.floor(rnd() * 40)), undefined);
          // Stable keys are overwritten too (their records move), never removed.
          const s = stable[Math.floor(rnd() * stable.length)]!;
          slab.put(s, 'y'.repeat(Math.floor(rnd() * 40)), undefined);
        }
        slab.compactIfSparse();
      };
      const got = pages(slab, 37, undefined, 50, mutate, mutate);
      layouts = slab.layoutVersion - layouts;
      expect(new Set(got).size, 'no key twice').toBe(got.length);
      for (const k of stable) expect(got.includes(k), k).toBe(true);
      expect(layouts, 'compactions happened under the walks').toBeGreaterThan(0);
    }
  });

  it('ends a step early when its time is up (asked every CHECK_EVERY records), and still completes', () => {
    const { slab, keys } = fill(5000);
    const walk = new ScanWalk(slab, 10, undefined, undefined, () => true);
    let steps = 0;
    while (!walk.step(1_000_000, () => true)) steps++;
    expect(steps).toBe(Math.floor(5000 / CHECK_EVERY));
    expect(walk.visited).toBe(5000);
    expect(walk.selector.sorted()).toEqual([...keys].sort().slice(0, 10));
  });

  it('starts over after a compaction, and finishes in one go after too many', () => {
    // More records than a step that runs out of time visits (CHECK_EVERY): the last walk must ignore its time.
    const { slab, keys } = fill(3 * CHECK_EVERY);
    const walk = new ScanWalk(slab, 10_000, undefined, undefined, () => true);
    expect(walk.step(10)).toBe(false);
    for (let i = 0; i < 5; i++) {
      // A clear and refill: handles void (layout changed).
      slab.clear();
      for (const k of keys) slab.put(k, 'v', undefined);
      if (walk.step(10, () => true)) break;
    }
    expect(walk.restarts).toBeGreaterThan(3);
    expect(walk.selector.sorted()).toEqual([...keys].sort());
  });
});

describe('a partition page on the wire', () => {
  it.each<PartitionPage>([
    { entries: [], more: false, last: undefined, values: false },
    { entries: [{ key: 'a', value: undefined, contentType: undefined }, { key: 'b', value: undefined, contentType: undefined }], more: true, last: 'c', values: false },
    { entries: [{ key: 'a', value: '\u0000\u00ff', contentType: 'application/octet-stream' }, { key: 'b', value: '', contentType: undefined }], more: false, last: 'b', values: true },
  ])('round-trips %o', (p) => {
    expect(decodeScanResult(encodeScanResult(p), (t, i) => (t[i] === null ? undefined : (t[i] as string)))).toEqual(p);
  });
});

describe('MapScans: pages over partitions (in-process map service, every partition local)', () => {
  const setup = (): MapService => new MapService({ config: configFromObject({}).config, invoker: new RecordingInvoker(), clock: new ManualClock(), logger: captureLogs('ALL').control.logger });
  const order = (a: string, b: string): number => (partitionIdOf(a) - partitionIdOf(b)) || (a < b ? -1 : a > b ? 1 : 0);

  async function listing(svc: MapService, limit: number, opts: { prefix?: string; values?: boolean; maxBytes?: number; between?: () => Promise<void> } = {}): Promise<{ keys: string[]; pages: ScanPage[] }> {
    const keys: string[] = [];
    const pages: ScanPage[] = [];
    let from: ScanPosition | undefined = { partitionId: 0, after: undefined };
    while (from !== undefined) {
      const p: ScanPage = await svc.scan({ mapName: 'm', from, limit, prefix: opts.prefix, values: opts.values ?? false, maxBytes: opts.maxBytes ?? 1 << 20 });
      expect(p.entries.length).toBeLessThanOrEqual(limit);
      pages.push(p);
      keys.push(...p.entries.map((e) => e.key));
      from = p.next;
      await opts.between?.();
      expect(pages.length).toBeLessThan(10_000);
    }
    return { keys, pages };
  }

  it('lists in partition order, then key order, with full pages but the last', async () => {
    const svc = setup();
    const all = Array.from({ length: 700 }, (_, i) => `key-${i}`);
    for (const k of all) await svc.put('m', k, `v-${k}`, 'text/plain');
    for (const limit of [1, 7, 100, 1000]) {
      const { keys, pages } = await listing(svc, limit);
      expect(keys).toEqual([...all].sort(order));
      for (const p of pages.slice(0, -1)) expect(p.entries.length).toBe(limit);
    }
  });

  it('an empty map is one empty page; a prefix lists only its keys', async () => {
    const svc = setup();
    expect((await listing(svc, 10)).pages).toEqual([{ entries: [], next: undefined }]);
    for (let i = 0; i < 300; i++) await svc.put('m', `${i % 3 === 0 ? 'a' : 'b'}-${i}`, 'v', undefined);
    const { keys } = await listing(svc, 9, { prefix: 'a-' });
    expect(keys.length).toBe(100);
    expect(keys.every((k) => k.startsWith('a-'))).toBe(true);
  });

  it('ends a page of entries at the byte budget (at least one entry), values and content types read', async () => {
    const svc = setup();
    for (let i = 0; i < 50; i++) await svc.put('m', `k${i}`, 'x'.repeat(100), i % 2 === 0 ? 'text/plain' : undefined);
    const { keys, pages } = await listing(svc, 1000, { values: true, maxBytes: 250 });
    expect(keys.sort()).toEqual(Array.from({ length: 50 }, (_, i) => `k${i}`).sort());
    for (const p of pages) expect(p.entries.length).toBeLessThanOrEqual(2);
    const e = pages[0]!.entries[0]!;
    expect(e.value).toBe('x'.repeat(100));
    expect(e.contentType).toBe(Number(e.key.slice(1)) % 2 === 0 ? 'text/plain' : undefined);
    const huge = setup();
    await huge.put('m', 'big', 'y'.repeat(1000), undefined);
    expect((await listing(huge, 10, { values: true, maxBytes: 10 })).keys).toEqual(['big']);
  });

  it('a key that lives through the listing is listed once while others come and go between pages', async () => {
    const svc = setup();
    const rnd = mulberry32(11);
    const stable = Array.from({ length: 400 }, (_, i) => `s-${i}`);
    for (const k of stable) await svc.put('m', k, 'v', undefined);
    const { keys } = await listing(svc, 13, {
      between: async () => {
        for (let i = 0; i < 10; i++) {
          const k = `c-${Math.floor(rnd() * 500)}`;
          if (rnd() < 0.5) await svc.remove('m', k);
          else await svc.put('m', k, 'w', undefined);
        }
      },
    });
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of stable) expect(keys.includes(k), k).toBe(true);
  });

  it('lists the maps with entries and their sizes, by name', async () => {
    const svc = setup();
    for (let i = 0; i < 30; i++) await svc.put('b', `k${i}`, 'v', undefined);
    await svc.put('a', 'x', 'v', undefined);
    await svc.put('gone', 'x', 'v', undefined);
    await svc.remove('gone', 'x');
    expect(await svc.mapNames()).toEqual([{ name: 'a', size: 1 }, { name: 'b', size: 30 }]);
  });
});
