// The console's Server-Sent Events parser (console/sse.ts): the member's stream as it really
// looks (comments, ids, multi-line data, every line ending), fed whole and one character at a
// time, must give the same events.

import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../../console/sse.js';

function feed(text: string, chunk: number): { events: SseEvent[]; lastId: string | undefined } {
  const p = new SseParser();
  const events: SseEvent[] = [];
  for (let i = 0; i < text.length; i += chunk) events.push(...p.push(text.slice(i, i + chunk)));
  return { events, lastId: p.lastId };
}

const STREAM = [
  ': subscribed',
  '',
  'id: 112.4.1',
  'event: added',
  'data: {"partition":112,"key":"eu/1001"}',
  '',
  ': heartbeat',
  '',
  'id: 7.0.3',
  'event: updated',
  'data: line one',
  'data:line two',
  '',
  'data: no type',
  '',
  'id: 9.1.1',
  '',
  'event: cut',
  'data: {"reason":"the member is shutting down"}',
  '',
  '',
  // One more line end: with "\r" endings a final "\r" waits to see whether "\n" follows.
  '',
].join('\n');

const WANT: SseEvent[] = [
  { id: '112.4.1', type: 'added', data: '{"partition":112,"key":"eu/1001"}' },
  { id: '7.0.3', type: 'updated', data: 'line one\nline two' },
  { id: undefined, type: 'message', data: 'no type' },
  { id: undefined, type: 'cut', data: '{"reason":"the member is shutting down"}' },
];

describe('SseParser', () => {
  for (const [name, eol] of [['\\n', '\n'], ['\\r\\n', '\r\n'], ['\\r', '\r']] as const) {
    it(`gives the same events whole and one character at a time, lines ending in ${name}`, () => {
      const text = STREAM.replace(/\n/g, eol);
      for (const chunk of [text.length, 1, 2, 7]) {
        const r = feed(text, chunk);
        expect(r.events, `chunks of ${chunk}`).toEqual(WANT);
        // An id without data still moves the resume point; the last event had none of its own.
        expect(r.lastId).toBe('9.1.1');
      }
    });
  }

  it('holds an unfinished event until its blank line comes', () => {
    const p = new SseParser();
    expect(p.push('id: 1\nevent: added\ndata: x\n')).toEqual([]);
    expect(p.push('\n')).toEqual([{ id: '1', type: 'added', data: 'x' }]);
    // "\r" at a chunk's end may be half of "\r\n": not a blank line yet.
    expect(p.push('data: y\r')).toEqual([]);
    expect(p.push('\n')).toEqual([]);
    expect(p.push('\r\n')).toEqual([{ id: undefined, type: 'message', data: 'y' }]);
  });
});
