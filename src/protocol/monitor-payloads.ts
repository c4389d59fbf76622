// Payloads of MemberReport (90): one member asks another for its own figures (the web
// console's member list, metrics history, operation rates). The answer carries the answering
// member's uuid, so that an answer from a different member at the same address (restarted, new
// uuid) is not taken for the one asked, and the figures as JSON: they are read-only, shaped by
// member/member-monitor.ts and checked there. Decoders throw GridError('BAD_REQUEST').

import { GridError } from '../core/errors.js';
import type { WireValue } from './codec.js';
import * as f from './fields.js';
import { recordTuple } from './record-tuple.js';

export const MEMBER_REPORT_KINDS = ['status', 'history', 'ops', 'migrations'] as const;
export type MemberReportKind = (typeof MEMBER_REPORT_KINDS)[number];

export interface MemberReportRequest {
  readonly kind: MemberReportKind;
  /** For `history`: how many of the last seconds (0 for the other kinds). */
  readonly seconds: number;
}

export function encodeMemberReportRequest(p: MemberReportRequest): WireValue {
  return [p.kind, p.seconds];
}

export function decodeMemberReportRequest(v: WireValue): MemberReportRequest {
  const t = f.tuple(v, 'member report');
  const kind = f.str(t, 0, 'kind');
  if (!(MEMBER_REPORT_KINDS as readonly string[]).includes(kind)) throw new GridError('BAD_REQUEST', `malformed member message: unknown member report kind "${kind.slice(0, 40)}"`);
  const seconds = f.int(t, 1, 'seconds');
  if (seconds < 0) throw new GridError('BAD_REQUEST', `malformed member message: seconds ${seconds} is negative`);
  return { kind: kind as MemberReportKind, seconds };
}

export interface MemberReportAnswer {
  readonly uuid: string;
  readonly json: string;
}

export const { encode: encodeMemberReportAnswer, decode: decodeMemberReportAnswer } = recordTuple<MemberReportAnswer>('member report answer', [
  ['uuid', f.str, 'uuid'],
  ['json', f.str, 'json'],
]);
