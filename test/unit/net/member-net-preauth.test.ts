// A connection to the member port must begin with an Auth request; whatever else comes first
// closes it (member-net.ts: "nothing else is accepted before it"), response frames included,
// and before it has authenticated a connection may not announce a large frame.

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { createLogControl } from '../../../src/core/logger.js';
import { configFromObject } from '../../../src/config/index.js';
import { Listener } from '../../../src/net/listener.js';
import { MemberNet } from '../../../src/net/member-net.js';
import { FrameKind, encodeFrame } from '../../../src/protocol/frame.js';
import { MEMBER_PREAMBLE } from '../../../src/protocol/preamble.js';
import { createMemberAuth } from '../../../src/security/credentials.js';
import { LogCapture } from '../../support/logs.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

async function startNode(): Promise<{ net: MemberNet; port: number }> {
  const logger = createLogControl({ level: 'FINE', destination: new LogCapture() }).logger;
  const memberNet = new MemberNet({
    logger,
    clock: systemClock,
    auth: createMemberAuth(configFromObject({}).config),
    local: () => ({ uuid: 'u', address: '127.0.0.1:0' }),
    connectTimeoutMs: 2_000,
    version: '0.0.0-test',
  });
  const listener = new Listener({ host: '127.0.0.1', logger, http: undefined, member: memberNet });
  const port = await listener.listen({ port: 0, autoIncrement: false, portCount: 1 });
  cleanup.push(async () => {
    await memberNet.stop();
    await listener.close(true);
  });
  return { net: memberNet, port };
}

describe('MemberNet: frames before authentication', () => {
  for (const kind of [FrameKind.Response, FrameKind.ErrorResponse]) {
    it(`closes a connection whose first frame is a ${kind === FrameKind.Response ? 'response' : 'error response'}`, async () => {
      const b = await startNode();
      const socket = net.connect({ host: '127.0.0.1', port: b.port });
      cleanup.push(() => void socket.destroy());
      socket.on('error', () => undefined);
      const closed = new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 1_000);
      });
      socket.write(Buffer.concat([MEMBER_PREAMBLE, encodeFrame(kind, 0, 1, ['x'])]));
      expect(await closed).toBe(true);
      expect(b.net.connectionCount()).toBe(0);
    });
  }

  it('closes an unauthenticated connection that announces a frame over 64 KiB, before buffering it', async () => {
    const b = await startNode();
    const socket = net.connect({ host: '127.0.0.1', port: b.port });
    cleanup.push(() => void socket.destroy());
    socket.on('error', () => undefined);
    const closed = new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 1_000);
    });
    const header = Buffer.alloc(4);
    header.writeUInt32BE(1024 * 1024);
    socket.write(Buffer.concat([MEMBER_PREAMBLE, header]));
    expect(await closed).toBe(true);
  });
});
