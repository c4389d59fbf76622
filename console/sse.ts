// Server-Sent Events parsing as a pure state machine (no fetch, no DOM): text goes in as it
// arrives, in chunks cut anywhere, whole events come out. The stream reader in api.ts feeds it;
// a unit test (test/unit/console/sse.test.ts) feeds it whole and one character at a time.

/** One Server-Sent Event as the member sent it. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly type: string;
  readonly data: string;
}

/** Two line ends in a row; a lone "\r" is one only when no "\n" follows (else "\r\n" would count twice). */
const BLANK_LINE = /(\r\n|\r(?!\n)|\n)(\r\n|\r(?!\n)|\n)/;

/** Parses the text/event-stream format (the HTML standard's rules for the fields the member sends). */
export class SseParser {
  private buf = '';
  /** The last `id:` seen: what a reconnect sends as Last-Event-ID. */
  lastId: string | undefined;

  /** Feeds the next chunk of text; returns the events it completed (comments and empty blocks give none). */
  push(chunk: string): SseEvent[] {
    this.buf += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      // An event ends at a blank line; "\r\n", "\n" and "\r" all end a line. A trailing "\r" may
      // be the first half of "\r\n": wait for the next chunk before deciding.
      const m = BLANK_LINE.exec(this.buf.endsWith('\r') ? this.buf.slice(0, -1) : this.buf);
      if (m === null) break;
      const block = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const e = this.block(block);
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  private block(block: string): SseEvent | undefined {
    let id: string | undefined;
    let type = '';
    const data: string[] = [];
    let hasData = false;
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = v;
      else if (field === 'event') type = v;
      else if (field === 'data') {
        data.push(v);
        hasData = true;
      }
    }
    if (id !== undefined) this.lastId = id;
    // As in the standard, a block without data dispatches nothing (but its id still counts).
    if (!hasData) return undefined;
    return { id, type: type === '' ? 'message' : type, data: data.join('\n') };
  }
}
