import { describe, expect, it } from 'vitest';
import { MEMBER_PREAMBLE, classifyFirstByte } from '../../../src/protocol/preamble.js';

describe('member protocol preamble', () => {
  it('is \\0GRD followed by the protocol version', () => {
    expect([...MEMBER_PREAMBLE]).toEqual([0x00, 0x47, 0x52, 0x44, 0x01]);
  });

  it('is told apart from HTTP by its first byte alone', () => {
    expect(classifyFirstByte(MEMBER_PREAMBLE[0]!)).toBe('member');
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE']) {
      expect(classifyFirstByte(method.charCodeAt(0)), method).toBe('http');
    }
    // Every byte except 0x00 goes to HTTP (which then answers 400 for garbage).
    for (let b = 1; b < 256; b++) expect(classifyFirstByte(b)).toBe('http');
  });
});
