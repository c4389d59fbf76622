// What a member that has not joined yet does after one round of asking the addresses of its
// tcp-ip member list: join the master someone already follows, form the cluster itself, or
// ask again. Pure, so the rule that keeps concurrent starters from forming two clusters is
// tested on its own: only the lowest address among the members that are starting forms,
// and only after it has seen (or been asked by) everyone that answered in two rounds.

import type { DiscoverAnswerPayload } from '../protocol/payloads.js';

/** What one address answered: its member's address, whether it joined, and the master it follows (when joined). */
export type DiscoverAnswer = Pick<DiscoverAnswerPayload, 'address' | 'joined' | 'masterAddress'>;

export type JoinDecision =
  | { readonly action: 'join'; readonly masterAddress: string }
  | { readonly action: 'form' }
  | { readonly action: 'wait'; readonly reason: string };

/** Rounds a member asks before it may form a cluster itself. */
export const ROUNDS_BEFORE_FORMING = 2;

/** Orders addresses by host, then port as a number. */
export function compareAddresses(a: string, b: string): number {
  const ia = a.lastIndexOf(':');
  const ib = b.lastIndexOf(':');
  const ha = a.slice(0, ia);
  const hb = b.slice(0, ib);
  if (ha !== hb) return ha < hb ? -1 : 1;
  return Number(a.slice(ia + 1)) - Number(b.slice(ib + 1));
}

export function decideJoin(input: {
  readonly self: string;
  /** Answers of this round (unreachable addresses left out). */
  readonly answers: readonly DiscoverAnswer[];
  /** Addresses of starting members that asked us recently. */
  readonly askedBy: readonly string[];
  /** Rounds done, this one included. */
  readonly round: number;
}): JoinDecision {
  const joined = input.answers.find((a) => a.joined);
  if (joined !== undefined) return { action: 'join', masterAddress: joined.masterAddress ?? joined.address };
  const starting = new Set<string>([input.self, ...input.answers.map((a) => a.address), ...input.askedBy]);
  const lowest = [...starting].sort(compareAddresses)[0]!;
  if (lowest !== input.self) return { action: 'wait', reason: `waiting for ${lowest} (lower address) to form the cluster` };
  if (input.round < ROUNDS_BEFORE_FORMING) return { action: 'wait', reason: 'asking the member list once more' };
  return { action: 'form' };
}
