import { describe, expect, it } from 'vitest';
import { StreamCursor } from '../../../src/events/journal-cursor.js';

describe('StreamCursor', () => {
  it('round-trips through its id, positions and start time alike', () => {
    const c = new StreamCursor(1_764_000_000_123);
    c.set(0, 5, 1);
    c.set(270, 9, 2 ** 40 + 3);
    c.set(17, 3, 127);
    c.set(18, 3, 128);
    const id = c.encode();
    expect(id).toMatch(/^j1\.[A-Za-z0-9_-]+$/);
    const d = StreamCursor.decode(id, 271)!;
    expect(d.sinceMs).toBe(1_764_000_000_123);
    for (const pid of [0, 17, 18, 270]) expect(d.position(pid)).toEqual(c.position(pid));
    expect(d.position(1)).toBeUndefined();
    expect(d.encode()).toBe(id);
  });

  it('stays small: a few bytes per partition', () => {
    const c = new StreamCursor(Date.now());
    for (let pid = 0; pid < 271; pid++) c.set(pid, 40 + (pid % 3), 100_000 + pid);
    expect(c.encode().length).toBeLessThan(271 * 8);
    expect(StreamCursor.decode(c.encode(), 271)?.position(270)).toEqual({ epoch: 40, sequence: 100_270 });
  });

  it('tells new events from delivered ones: a later sequence or a newer term', () => {
    const c = new StreamCursor(0);
    expect(c.isNew(3, 1, 1)).toBe(true);
    c.set(3, 2, 10);
    expect(c.isNew(3, 2, 10)).toBe(false);
    expect(c.isNew(3, 2, 9)).toBe(false);
    expect(c.isNew(3, 2, 11)).toBe(true);
    expect(c.isNew(3, 3, 5)).toBe(true);
    expect(c.isNew(3, 1, 50)).toBe(false);
  });

  it('refuses ids that are not its own or are damaged', () => {
    const good = new StreamCursor(5);
    good.set(4, 1, 2);
    const id = good.encode();
    for (const bad of ['', '4.1.2', 'j1.', 'j1.!!', 'j2.' + id.slice(3), id.slice(0, -1), id + 'AA']) expect(StreamCursor.decode(bad, 271)).toBeUndefined();
    // A partition beyond the count.
    const far = new StreamCursor(5, 400);
    far.set(300, 1, 1);
    expect(StreamCursor.decode(far.encode(), 271)).toBeUndefined();
    expect(StreamCursor.decode(far.encode(), 400)?.position(300)).toEqual({ epoch: 1, sequence: 1 });
    expect(() => new StreamCursor(5).set(271, 1, 1)).toThrow(RangeError);
  });
});
