// The dialling side's fuzz: a listener on an address a member is told to dial (its tcp-ip
// list), answering every request that member sends with a fuzzed answer (wrong shapes, error
// answers of any shape, garbage, requests instead of answers), one answer per case.

import net from 'node:net';
import { FrameKind, FrameReader } from '../../src/protocol/frame.js';
import { Rng, caseSeed } from './engine.js';
import { fuzzAnswer, type MemberFuzzContext } from './member-input.js';

export interface AnswerRecord {
  readonly index: number;
  readonly request: string;
  readonly label: string;
  readonly hex: string;
}

export class FakePeer {
  readonly answers: AnswerRecord[] = [];
  private readonly sockets = new Set<net.Socket>();
  private next = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** `masters`: addresses a fuzzed Discover answer may name as the cluster's master (other fake peers). */
  static async listen(port: number, seed: number, ctx: MemberFuzzContext, masters: readonly string[] = []): Promise<FakePeer> {
    const server = net.createServer();
    const peer = new FakePeer(server, port);
    server.on('connection', (socket: net.Socket) => peer.serve(socket, seed, ctx, masters));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return peer;
  }

  private serve(socket: net.Socket, seed: number, ctx: MemberFuzzContext, masters: readonly string[]): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const reader = new FrameReader({ expectPreamble: true });
    socket.on('data', (d: Buffer) => {
      let frames;
      try {
        frames = reader.push(d);
      } catch {
        socket.destroy();
        return;
      }
      for (const f of frames) {
        if (f.kind !== FrameKind.Request) continue;
        const index = this.next++;
        const answer = fuzzAnswer(new Rng(caseSeed(seed, index)), f, ctx, masters);
        this.answers.push({ index, request: `type ${f.type} call ${f.callId}`, label: answer.label, hex: answer.bytes.toString('hex') });
        if (socket.destroyed) return;
        socket.write(answer.bytes);
        // Only a valid answer keeps the connection (the dialler goes on to its next request);
        // after anything else it closes, so a call that got no answer fails now, not at its timeout.
        if (answer.close || !answer.label.startsWith('valid')) {
          socket.end();
          return;
        }
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
