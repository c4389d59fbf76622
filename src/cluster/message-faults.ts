// Simulated message loss, for tests only (grid.debug.ignore-messages): a member that pretends
// to take some member messages but ignores them, so tests can show that what depends on them
// (a state commit, a rollback) converges anyway. Pure: a parsed rule list and a counter.

import { Msg } from '../protocol/messages.js';

export interface MessageFaultRule {
  readonly type: number;
  /** How many more messages to ignore; Infinity = all. */
  remaining: number;
  /** Answer an error instead of a silent success. */
  readonly refuse: boolean;
}

/** Parses `Name[:count][:refuse]` entries (comma-separated); unknown names are returned as problems. */
export function parseMessageFaults(spec: string): { rules: MessageFaultRule[]; problems: string[] } {
  const rules: MessageFaultRule[] = [];
  const problems: string[] = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [name = '', ...rest] = entry.split(':');
    const type = (Msg as Record<string, number>)[name];
    if (type === undefined) {
      problems.push(`unknown member message ${name}`);
      continue;
    }
    let remaining = Infinity;
    let refuse = false;
    for (const part of rest) {
      if (part === 'refuse') refuse = true;
      else if (/^\d+$/.test(part)) remaining = Number(part);
      else problems.push(`${entry}: ${part} is neither a count nor "refuse"`);
    }
    rules.push({ type, remaining, refuse });
  }
  return { rules, problems };
}

/** What to do with a message of `type`: 'drop' it (answer success), 'refuse' it, or undefined to handle it. */
export function applyMessageFault(rules: readonly MessageFaultRule[], type: number): 'drop' | 'refuse' | undefined {
  for (const r of rules) {
    if (r.type !== type || r.remaining <= 0) continue;
    r.remaining--;
    return r.refuse ? 'refuse' : 'drop';
  }
  return undefined;
}
