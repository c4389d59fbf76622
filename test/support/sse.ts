// A Server-Sent Events reader over a raw socket (the change streams of docs/data-api.md): the
// stream's text as it comes, cut into events; resolved once the member says it is subscribed.

import net from 'node:net';
import { waitFor } from './wait.js';

export interface Stream {
  readonly socket: net.Socket;
  text(): string;
  /** The events so far: [event, id, data]. */
  events(): { event: string; id: string | undefined; data: Record<string, unknown> }[];
}

export function openStream(port: number, path: string, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.once('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
      const stream: Stream = {
        socket,
        text: () => text,
        events: () =>
          text
            .split('\n\n')
            .filter((b) => /^(id|event): /m.test(b))
            .map((b) => {
              const field = (name: string): string | undefined => new RegExp(`^${name}: (.*)$`, 'm').exec(b)?.[1];
              return { event: field('event') ?? 'message', id: field('id'), data: JSON.parse(field('data') ?? '{}') as Record<string, unknown> };
            }),
      };
      void waitFor('the stream to start', () => text.includes(': subscribed'), 10_000).then(() => resolve(stream), reject);
    });
  });
}

