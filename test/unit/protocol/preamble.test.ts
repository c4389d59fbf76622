import { describe, expect, it } from 'vitest';
import { MEMBER_PREAMBLE, classifyFirstByte, classifyHead } from '../../../src/protocol/preamble.js';

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

describe('classifyHead', () => {
  const head = (s: string | number[]): Uint8Array => (typeof s === 'string' ? Buffer.from(s, 'latin1') : Uint8Array.from(s));

  it('tells the three protocols apart, waiting while a head could still be `CP2`', () => {
    expect(classifyHead(head([0x00]))).toBe('member');
    expect(classifyHead(head('CP2'))).toBe('client');
    expect(classifyHead(head('CP2\u0028\u0000'))).toBe('client');
    expect(classifyHead(head('C'))).toBeUndefined();
    expect(classifyHead(head('CP'))).toBeUndefined();
    expect(classifyHead(head(''))).toBeUndefined();
    // HTTP methods, including the ones that start like the client header.
    for (const m of ['GET /', 'CONNECT x', 'COPY /', 'CP1', 'CPX', 'POST /']) expect(classifyHead(head(m)), m).toBe('http');
    expect(classifyHead(head('CO'))).toBe('http');
  });
});
