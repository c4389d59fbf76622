import { describe, expect, it } from 'vitest';
import { AuthStatus, decodeAuthRequest, encodeAuthResponse } from '../../../src/client/auth-codec.js';
import { encodeMessage, FrameReader } from '../../../src/client/frame.js';
import { CAPTURED_AUTH } from './vectors.js';
import { hz, hzBytes, hzRead, hzUuid } from './hz-client.js';

const read = (bytes: Buffer) => new FrameReader().push(bytes)[0]!;

describe('ClientAuthentication', () => {
  it('decodes the captured request of hazelcast-client 5.7.0', () => {
    expect(decodeAuthRequest(read(CAPTURED_AUTH))).toEqual({
      // msb and lsb are int64 LE on the wire: 83217bc9d608f1d7 is 0xd7f108d6c97b2183.
      clientUuid: 'd7f108d6-c97b-2183-cef3-4fc5fa48d7c8',
      serializationVersion: 1,
      clusterName: 'dev',
      username: null,
      password: null,
      clientType: 'NJS',
      clientVersion: '5.7.0',
      clientName: 'hz.client_0',
      labels: [],
    });
  });

  it('decodes what the client encodes with credentials and labels', () => {
    const m = hz.auth.encodeRequest!('prod', 'alice', 's3cret', hzUuid('11111111-2222-3333-4444-555555555555'), 'NJS', 1, '5.7.0', 'app', ['a', 'b']) as Parameters<typeof hzBytes>[0];
    const r = decodeAuthRequest(read(hzBytes(m)));
    expect(r).toMatchObject({ clusterName: 'prod', username: 'alice', password: 's3cret', clientUuid: '11111111-2222-3333-4444-555555555555', labels: ['a', 'b'] });
  });

  it('refuses a request cut short', () => {
    const m = read(CAPTURED_AUTH);
    expect(() => decodeAuthRequest(m.slice(0, 5))).toThrow(/missing client version/);
  });

  it('encodes a response the client decodes', () => {
    const b = encodeAuthResponse(9n, {
      status: AuthStatus.AUTHENTICATED,
      memberUuid: 'b079e8bf-f481-48b0-a39f-619eb432e1ef',
      partitionCount: 271,
      clusterId: 'aaaaaaaa-bbbb-5ccc-8ddd-eeeeeeeeeeee',
      address: { host: '127.0.0.1', port: 5701 },
      serverVersion: '5.7.0',
    });
    const m = hzRead(encodeMessage(b.frames));
    expect(m.getMessageType()).toBe(0x000101);
    expect(String(m.getCorrelationId())).toBe('9');
    const r = hz.auth.decodeResponse!(m) as Record<string, unknown>;
    expect(r.status).toBe(0);
    expect(String(r.memberUuid)).toBe('b079e8bf-f481-48b0-a39f-619eb432e1ef');
    expect(r.serializationVersion).toBe(1);
    expect(r.partitionCount).toBe(271);
    expect(String(r.clusterId)).toBe('aaaaaaaa-bbbb-5ccc-8ddd-eeeeeeeeeeee');
    expect(r.failoverSupported).toBe(false);
    expect(String(r.address)).toBe('127.0.0.1:5701');
    expect(r.serverHazelcastVersion).toBe('5.7.0');
  });

  it('encodes a refusal with null uuids and address', () => {
    const b = encodeAuthResponse(1n, { status: AuthStatus.CREDENTIALS_FAILED, memberUuid: null, partitionCount: 271, clusterId: null, address: null, serverVersion: '5.7.0' });
    const r = hz.auth.decodeResponse!(hzRead(encodeMessage(b.frames))) as Record<string, unknown>;
    expect(r.status).toBe(1);
    expect(r.memberUuid).toBeNull();
    expect(r.address).toBeNull();
  });
});
