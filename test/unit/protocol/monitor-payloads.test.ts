// MemberReport (90): the web console's read-only figures request, pinned on bytes, fed through
// the real value codec, and malformed shapes refused naming the field.

import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue, type WireValue } from '../../../src/protocol/codec.js';
import * as R from '../../../src/protocol/monitor-payloads.js';

const through = (v: WireValue): WireValue => decodeValue(encodeValue(v));

describe('MemberReport payloads', () => {
  const REQUEST = '080000000205000000067374617475730300000000';
  const ANSWER = '080000000205000000017505000000027b7d';

  it('encode to the pinned bytes and decode from them', () => {
    expect(encodeValue(R.encodeMemberReportRequest({ kind: 'status', seconds: 0 })).toString('hex')).toBe(REQUEST);
    expect(R.decodeMemberReportRequest(decodeValue(Buffer.from(REQUEST, 'hex')))).toEqual({ kind: 'status', seconds: 0 });
    expect(encodeValue(R.encodeMemberReportAnswer({ uuid: 'u', json: '{}' })).toString('hex')).toBe(ANSWER);
    expect(R.decodeMemberReportAnswer(decodeValue(Buffer.from(ANSWER, 'hex')))).toEqual({ uuid: 'u', json: '{}' });
  });

  it('round-trips every kind', () => {
    for (const kind of R.MEMBER_REPORT_KINDS) expect(R.decodeMemberReportRequest(through(R.encodeMemberReportRequest({ kind, seconds: 600 })))).toEqual({ kind, seconds: 600 });
  });

  it('refuses malformed requests and answers, naming what is wrong', () => {
    expect(() => R.decodeMemberReportRequest(['nope', 0])).toThrow(/unknown member report kind/);
    expect(() => R.decodeMemberReportRequest(['status', -1])).toThrow(/negative/);
    expect(() => R.decodeMemberReportRequest(['status', 1.5])).toThrow(/seconds/);
    expect(() => R.decodeMemberReportRequest([3, 0])).toThrow(/kind/);
    expect(() => R.decodeMemberReportRequest('x')).toThrow(/member report/);
    expect(() => R.decodeMemberReportAnswer(['u'])).toThrow(/json/);
    expect(() => R.decodeMemberReportAnswer([null, '{}'])).toThrow(/uuid/);
  });
});
