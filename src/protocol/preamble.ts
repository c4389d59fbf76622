// The member protocol announces itself with a preamble. Its first byte is 0x00, which no
// HTTP request can start with, so one byte decides which protocol a connection speaks.
// Hazelcast's clients open with the three bytes `CP2`; no HTTP method starts with them, but
// `C` alone could be CONNECT or COPY, so a connection starting with `C` waits for its third byte.

export const MEMBER_PROTOCOL_VERSION = 1;
/** `\0GRD` + protocol version. */
export const MEMBER_PREAMBLE = Uint8Array.of(0x00, 0x47, 0x52, 0x44, MEMBER_PROTOCOL_VERSION);

export type ConnectionKind = 'member' | 'http' | 'client';

/** `CP2`: the Open Binary Client Protocol's header (hazelcast-client ConnectionManager). */
export const CLIENT_PROTOCOL_HEADER = Uint8Array.of(0x43, 0x50, 0x32);

/** Which protocol a connection speaks, from its first byte. */
export function classifyFirstByte(byte: number): ConnectionKind {
  return byte === MEMBER_PREAMBLE[0] ? 'member' : 'http';
}

/**
 * Which protocol a connection speaks from its first bytes; undefined while they could still
 * be the client protocol's header (fewer than 3 bytes that match it so far).
 */
export function classifyHead(head: Uint8Array): ConnectionKind | undefined {
  if (head.length === 0) return undefined;
  if (head[0] === MEMBER_PREAMBLE[0]) return 'member';
  const n = Math.min(head.length, CLIENT_PROTOCOL_HEADER.length);
  for (let i = 0; i < n; i++) if (head[i] !== CLIENT_PROTOCOL_HEADER[i]) return 'http';
  return n === CLIENT_PROTOCOL_HEADER.length ? 'client' : undefined;
}
