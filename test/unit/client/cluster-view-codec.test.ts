import { describe, expect, it } from 'vitest';
import { encodeMembersView, encodePartitionsView } from '../../../src/client/cluster-view-codec.js';
import { encodeMessage, Flag } from '../../../src/client/frame.js';
import { hz, hzRead } from './hz-client.js';

interface HzMemberInfo {
  uuid: { toString(): string };
  address: { host: string; port: number };
  liteMember: boolean;
  version: { major: number; minor: number; patch: number };
  attributes: Map<string, string>;
}

function handle(bytes: Buffer): { members?: [number, HzMemberInfo[]]; partitions?: [number, [{ toString(): string }, number[]][]] } {
  const m = hzRead(bytes);
  const out: ReturnType<typeof handle> = {};
  hz.clusterView.handle!(
    m,
    (v: number, ms: HzMemberInfo[]) => (out.members = [v, ms]),
    (v: number, ps: [{ toString(): string }, number[]][]) => (out.partitions = [v, ps]),
  );
  return out;
}

const A = 'b079e8bf-f481-48b0-a39f-619eb432e1ef';
const B = '0a1b2c3d-4e5f-4061-8273-8495a6b7c8d9';

describe('cluster view events', () => {
  it('the members view decodes with the client: uuid, address, lite flag, version', () => {
    const b = encodeMembersView(77n, 3, [
      { uuid: A, host: '127.0.0.1', port: 5701, liteMember: false, version: '5.7.0' },
      { uuid: B, host: '::1', port: 5702, liteMember: true, version: '5.7.0' },
    ]);
    const bytes = encodeMessage(b.frames);
    expect(bytes.readUInt16LE(4) & Flag.IS_EVENT).toBe(Flag.IS_EVENT);
    const m = hzRead(bytes);
    expect(String(m.getCorrelationId())).toBe('77');
    const { members } = handle(bytes);
    expect(members![0]).toBe(3);
    expect(members![1].map((x) => [String(x.uuid), x.address.host, x.address.port, x.liteMember, x.version.major, x.version.minor, x.version.patch, x.attributes.size])).toEqual([
      [A, '127.0.0.1', 5701, false, 5, 7, 0, 0],
      [B, '::1', 5702, true, 5, 7, 0, 0],
    ]);
  });

  it('the partitions view groups partitions by owner; unassigned ones are left out', () => {
    const owners = Array.from({ length: 271 }, (_, pid) => (pid === 5 ? undefined : pid % 2 === 0 ? A : B));
    const { partitions } = handle(encodeMessage(encodePartitionsView(1n, 12, owners).frames));
    expect(partitions![0]).toBe(12);
    const byOwner = new Map(partitions![1].map(([u, pids]) => [String(u), pids]));
    expect(byOwner.get(A)).toEqual(owners.flatMap((o, pid) => (o === A ? [pid] : [])));
    expect(byOwner.get(B)).toEqual(owners.flatMap((o, pid) => (o === B ? [pid] : [])));
    expect(byOwner.get(A)!.includes(5) || byOwner.get(B)!.includes(5)).toBe(false);
  });

  it('an empty table is an empty entry list', () => {
    const { partitions } = handle(encodeMessage(encodePartitionsView(1n, 1, []).frames));
    expect(partitions![1]).toEqual([]);
  });
});
