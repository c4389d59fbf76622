// Log lines a member (or a service under test) wrote through pino, parsed. pino writes
// synchronously to this stream, so lines are there as soon as the call that logged returns.

import { Writable } from 'node:stream';

export class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    cb();
  }
  messages(): string[] {
    return this.lines.map((l) => String(l.msg ?? ''));
  }
}
