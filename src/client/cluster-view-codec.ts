// The cluster view listener's two events (research note §3.1): the members view (0x000302) and
// the partitions view (0x000303), pushed on the registering connection with the registration's
// correlation id, first at once and again with a higher version on every change.

import { eventInitial, EVENT_FIXED_OFFSET, MessageBuilder, UUID_BYTES, writeUuid } from './codec.js';
import { Flag } from './frame.js';
import { MessageId } from './message-ids.js';

export interface ViewMember {
  readonly uuid: string;
  readonly host: string;
  readonly port: number;
  readonly liteMember: boolean;
  /** major.minor.patch */
  readonly version: string;
}

const EVENT_FLAGS = Flag.UNFRAGMENTED | Flag.IS_EVENT;

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v, 0);
  return b;
}

function versionBytes(version: string): Buffer {
  const parts = version.split('.').map((p) => Number.parseInt(p, 10));
  return Buffer.from([0, 1, 2].map((i) => (Number.isInteger(parts[i]) ? Math.min(255, Math.max(0, parts[i]!)) : 0)));
}

export function encodeMembersView(correlationId: bigint, version: number, members: readonly ViewMember[]): MessageBuilder {
  const init = eventInitial(MessageId.ClientMembersViewEvent, correlationId, -1, 4);
  init.writeInt32LE(version, EVENT_FIXED_OFFSET);
  const b = new MessageBuilder(init, EVENT_FLAGS);
  b.list(members, (m) => {
    const fixed = Buffer.alloc(UUID_BYTES + 1);
    writeUuid(fixed, 0, m.uuid);
    fixed[UUID_BYTES] = m.liteMember ? 1 : 0;
    b.begin().frame(fixed);
    b.begin().frame(int32(m.port)).string(m.host).end(); // address
    b.begin().end(); // attributes: none
    b.begin().frame(versionBytes(m.version)).end();
    b.begin().end(); // address map: none (the clients use the address above)
    b.end();
  });
  return b;
}

/** `owners[pid]` is the uuid of partition pid's owner (undefined: none yet; left out). */
export function encodePartitionsView(correlationId: bigint, version: number, owners: readonly (string | undefined)[]): MessageBuilder {
  const init = eventInitial(MessageId.ClientPartitionsViewEvent, correlationId, -1, 4);
  init.writeInt32LE(version, EVENT_FIXED_OFFSET);
  const byOwner = new Map<string, number[]>();
  owners.forEach((uuid, pid) => {
    if (uuid === undefined) return;
    let list = byOwner.get(uuid);
    if (list === undefined) byOwner.set(uuid, (list = []));
    list.push(pid);
  });
  const b = new MessageBuilder(init, EVENT_FLAGS);
  // EntryList<UUID, List<int>>: the lists between BEGIN and END, then one frame of the keys in the same order.
  b.begin();
  for (const pids of byOwner.values()) {
    const packed = Buffer.alloc(4 * pids.length);
    pids.forEach((pid, i) => packed.writeInt32LE(pid, 4 * i));
    b.frame(packed);
  }
  b.end();
  const keys = Buffer.alloc(UUID_BYTES * byOwner.size);
  let i = 0;
  for (const uuid of byOwner.keys()) writeUuid(keys, UUID_BYTES * i++, uuid);
  return b.frame(keys);
}
