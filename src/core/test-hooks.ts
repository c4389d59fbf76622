// The one seam between production code and the test-only fault switches (grid.debug.*): the
// parsed rules of grid.debug.ignore-messages (simulated message loss) and the counter of
// grid.debug.drop-backups (simulated lost backups). Services reach fault injection only through
// this module, and scripts/check-layers.mjs holds every other production file to that, so a
// reader of a production path sees where a test may bend it. Pure: no I/O, no timers.

/** The switches as the config names them (properties of `hazelcast.properties`). */
export const DEBUG_SWITCHES = {
  ignoreMessages: 'grid.debug.ignore-messages',
  dropBackups: 'grid.debug.drop-backups',
} as const;

// ------------------------------------------------------------------ grid.debug.ignore-messages

export interface MessageFaultRule {
  readonly type: number;
  /** How many more messages to ignore; Infinity = all. */
  remaining: number;
  /** Answer an error instead of a silent success. */
  readonly refuse: boolean;
}

/**
 * Parses `Name[:count][:refuse]` entries (comma-separated), names looked up in `messageTypes`
 * (the member protocol's message table, which this layer cannot import); unknown names are
 * returned as problems.
 */
export function parseMessageFaults(spec: string, messageTypes: Readonly<Record<string, number>>): { rules: MessageFaultRule[]; problems: string[] } {
  const rules: MessageFaultRule[] = [];
  const problems: string[] = [];
  for (const raw of spec.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [name = '', ...rest] = entry.split(':');
    const type = messageTypes[name];
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

// ------------------------------------------------------------------ grid.debug.drop-backups

/**
 * Which received backups to skip, evenly spread. With fraction f, the k-th backup (from 0) is
 * skipped when floor((k+1)·f) > floor(k·f): 0.1 skips every tenth, 1 skips all, 0 none.
 */
export class BackupDropper {
  private received = 0;
  dropped = 0;
  constructor(private readonly fraction: number) {}

  get active(): boolean {
    return this.fraction > 0;
  }

  next(): boolean {
    if (this.fraction <= 0) return false;
    const k = this.received++;
    const drop = Math.floor((k + 1) * this.fraction) > Math.floor(k * this.fraction);
    if (drop) this.dropped++;
    return drop;
  }
}
