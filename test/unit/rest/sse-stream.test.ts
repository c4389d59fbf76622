// SseWriter (sse-stream.ts) over a fake socket: frames wait for the head, one socket write per
// turn carries every frame of the turn, the unsent-bytes budget cuts (dropping the backlog),
// and the shared frame cache formats an event once per form.

import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_UNSENT_BYTES, SseWriter, sharedFrames } from '../../../src/rest/sse-stream.js';

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

function fakeSocket(): { socket: Socket; writes: string[]; ended: string[]; state: { writableLength: number; destroyed: boolean } } {
  const writes: string[] = [];
  const ended: string[] = [];
  const state = { writableLength: 0, destroyed: false };
  const socket = {
    get writableLength() {
      return state.writableLength;
    },
    get destroyed() {
      return state.destroyed;
    },
    write: (t: Buffer | string) => writes.push(t.toString()),
    end: (t: string) => ended.push(t),
    destroy: () => (state.destroyed = true),
  } as unknown as Socket;
  return { socket, writes, ended, state };
}

describe('SseWriter', () => {
  it('holds frames until the head is out, then sends each turn in one write', async () => {
    const { socket, writes } = fakeSocket();
    const w = new SseWriter(socket, () => undefined);
    w.write('a\n\n');
    await turn();
    expect(writes).toEqual([]);
    w.start('HEAD');
    expect(writes).toEqual(['HEAD', 'a\n\n']);
    w.write('b\n\n');
    w.write('c\n\n');
    expect(writes).toHaveLength(2);
    await turn();
    expect(writes).toEqual(['HEAD', 'a\n\n', 'b\n\nc\n\n']);
  });

  it('a burst within one turn goes out as it comes, so it is not counted as unread', () => {
    const { socket, writes } = fakeSocket();
    const reasons: string[] = [];
    const w = new SseWriter(socket, (r) => reasons.push(r));
    w.start('HEAD');
    const frame = Buffer.alloc(1000, 'x');
    for (let i = 0; i < 2 * MAX_UNSENT_BYTES / frame.length; i++) w.write(frame);
    expect(reasons).toEqual([]);
    expect(writes.length).toBeGreaterThan(20);
  });

  it('past the budget: told once, the backlog dropped, the cut frame last', async () => {
    const { socket, writes, ended, state } = fakeSocket();
    const reasons: string[] = [];
    const w = new SseWriter(socket, (r) => {
      reasons.push(r);
      w.end('event: cut\n\n', true);
    });
    w.start('HEAD');
    w.write('pending\n\n');
    state.writableLength = MAX_UNSENT_BYTES;
    w.write('x');
    expect(reasons).toEqual([`slow consumer: more than ${MAX_UNSENT_BYTES} bytes unread`]);
    w.write('after');
    await turn();
    expect(writes).toEqual(['HEAD']);
    expect(ended).toEqual(['event: cut\n\n']);
  });

  it('an end that is not a cut sends what is pending first', () => {
    const { socket, writes, ended } = fakeSocket();
    const w = new SseWriter(socket, () => undefined);
    w.start('HEAD');
    w.write('last\n\n');
    w.end('event: cut\n\n', false);
    expect(writes).toEqual(['HEAD', 'last\n\n']);
    expect(ended).toEqual(['event: cut\n\n']);
  });
});

describe('sharedFrames', () => {
  it('formats an event once per form, again for the next event', () => {
    let calls = 0;
    const frame = sharedFrames((e: { n: number }, values: boolean) => `${++calls}:${e.n}:${values}`);
    const e1 = { n: 1 };
    const frames = [frame(e1, false), frame(e1, false), frame(e1, true), frame(e1, true)];
    expect(frames.map(String)).toEqual(['1:1:false', '1:1:false', '2:1:true', '2:1:true']);
    // The very same bytes for every subscriber.
    expect(frames[0]).toBe(frames[1]);
    expect(String(frame({ n: 2 }, false))).toBe('3:2:false');
  });
});
