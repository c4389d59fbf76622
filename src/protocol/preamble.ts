// The member protocol announces itself with a preamble. Its first byte is 0x00, which no
// HTTP request can start with, so one byte decides which protocol a connection speaks.

export const MEMBER_PROTOCOL_VERSION = 1;
/** `\0GRD` + protocol version. */
export const MEMBER_PREAMBLE = Uint8Array.of(0x00, 0x47, 0x52, 0x44, MEMBER_PROTOCOL_VERSION);

export type ConnectionKind = 'member' | 'http';

/** Which protocol a connection speaks, from its first byte. */
export function classifyFirstByte(byte: number): ConnectionKind {
  return byte === MEMBER_PREAMBLE[0] ? 'member' : 'http';
}
