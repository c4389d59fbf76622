// What the REST layer reads of a request and does with its response: the few members of
// node's IncomingMessage and ServerResponse that Grid uses. node's objects have them (the
// node:http path passes them as they are); Grid's own HTTP/1.1 path (http1-connection.ts)
// implements them on plain objects, without streams or header maps.

import type net from 'node:net';

export interface RestRequest {
  readonly method?: string | undefined;
  /** The request target as sent (path and query). */
  readonly url?: string | undefined;
  /** '1.1' or '1.0'. */
  readonly httpVersion: string;
  /** Header names and values as sent, alternating. */
  readonly rawHeaders: string[];
  readonly socket: net.Socket;
  /** True once the whole body has arrived. */
  readonly complete: boolean;
  /**
   * Grid's own path: the whole body, when it had arrived with the head (no 'data' events come
   * then). node's IncomingMessage has no such field.
   */
  readonly wholeBody?: Buffer | undefined;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  once(event: 'end' | 'close', listener: () => void): unknown;
  /** Discard the rest of the body. */
  resume(): unknown;
}

export interface RestResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  /** end() was called. */
  readonly writableEnded: boolean;
  /** The whole answer was handed to the kernel. */
  readonly writableFinished: boolean;
  statusCode: number;
  /** False: the connection closes after this answer. */
  shouldKeepAlive: boolean;
  writeHead(statusCode: number, headers: string[]): unknown;
  setHeader(name: string, value: string): unknown;
  end(chunk?: string | Buffer, encoding?: BufferEncoding): unknown;
  writeContinue(): void;
  destroy(): unknown;
  /** 'finish': written out; 'close': done or the connection went. */
  once(event: 'finish' | 'close', listener: () => void): unknown;
  /**
   * Grid's own path: status, optional Content-Type, Content-Length and a latin1 body in one go,
   * the bytes writeHead() and end() would write (node's ServerResponse has no such method).
   */
  answerLatin1?(statusCode: number, contentType: string | undefined, body: string): void;
}
