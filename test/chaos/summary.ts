// What a chaos run measured, as numbers and as a Markdown table to paste into notes. Pure.

import type { Report } from './ledger.js';

/** The faults the driver knows (`partition` runs the members in network namespaces: chaos-run.ts). */
export type FaultKind = 'kill' | 'pause' | 'longpause' | 'partition';

export interface FaultRecord {
  readonly kind: FaultKind;
  readonly victim: number;
  readonly victimWasMaster: boolean;
  /** ms since the run started. */
  readonly at: number;
  /**
   * Time to safe, ms: kill = SIGKILL -> the others safe without it; pause = SIGCONT -> safe
   * with every member; longpause = SIGSTOP -> the others safe without it.
   */
  readonly safeMs: number;
  /** kill and longpause: restart -> safe with every member again. */
  readonly rejoinMs?: number;
  /** pause and longpause: how long the member was stopped. */
  readonly pausedMs?: number;
  /** longpause: SIGCONT -> the process exited by itself (undefined when it did not). */
  readonly exitAfterResumeMs?: number;
  /** Anything unexpected (a short pause that got the member removed, a member that kept running). */
  readonly problems: readonly string[];
}

/** Nearest-rank percentile (`p` in 0..100) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

const seconds = (ms: number): string => (Number.isNaN(ms) ? '–' : `${(ms / 1000).toFixed(2)} s`);

export interface RunInfo {
  readonly seed: number;
  readonly members: number;
  readonly clients: number;
  readonly minutes: number;
  readonly faults: readonly FaultKind[];
}

/** The run as a Markdown table (faults, then operations), followed by the problems found. */
export function formatSummary(
  info: RunInfo,
  faults: readonly FaultRecord[],
  report: Report,
  fatal: readonly string[] = [],
  /** Requests that got no answer or an error, as the driver describes them (shown after the violations). */
  incidents: readonly string[] = [],
): string {
  const lines: string[] = [];
  lines.push(
    `Chaos run: seed ${info.seed}, ${info.members} members, ${info.clients} clients, ${info.minutes.toFixed(1)} min, faults ${info.faults.join(',')}, backup-count 1, heartbeat 1 s / max-no-heartbeat 5 s`,
    '',
    '| fault | count | on master | time to safe p50 | p99 | rejoin p50 | p99 |',
    '|---|---|---|---|---|---|---|',
  );
  const row = (label: string, rs: readonly FaultRecord[], extra = ''): void => {
    const safe = rs.map((r) => r.safeMs);
    const rejoin = rs.flatMap((r) => (r.rejoinMs === undefined ? [] : [r.rejoinMs]));
    lines.push(
      `| ${label}${extra} | ${rs.length} | ${rs.filter((r) => r.victimWasMaster).length} | ${seconds(percentile(safe, 50))} | ${seconds(percentile(safe, 99))} | ${seconds(percentile(rejoin, 50))} | ${seconds(percentile(rejoin, 99))} |`,
    );
  };
  const of = (k: FaultKind): FaultRecord[] => faults.filter((f) => f.kind === k);
  const pauses = of('pause').flatMap((f) => (f.pausedMs === undefined ? [] : [f.pausedMs]));
  row('kill -9 + restart (safe from SIGKILL)', of('kill'));
  row('SIGSTOP under the deadline (safe from SIGCONT)', of('pause'), pauses.length ? `, ${seconds(Math.min(...pauses))}-${seconds(Math.max(...pauses))}` : '');
  row('SIGSTOP past the deadline + restart (safe from SIGSTOP)', of('longpause'));
  if (of('partition').length > 0) row('network partition', of('partition'));
  const m = report.map;
  const q = report.queue;
  lines.push(
    '',
    '| operations | acknowledged | in doubt (no 200) | lost | reverted | unknown | duplicates |',
    '|---|---|---|---|---|---|---|',
    `| map writes (${m.keys} keys) | ${m.writesAcked} | ${m.writesInDoubt + m.writesAbandoned}${m.writesAbandoned ? ` (${m.writesAbandoned} abandoned)` : ''} | ${m.lostKeys} | ${m.revertedKeys} | ${m.unknownKeys} | – |`,
    `| map reads (${m.readsDuringRun} during the run, ${m.finalReads} final) | – | ${m.readsFailed} failed; ${m.readsOfInDoubtWrites} saw an in-doubt write | – | – | – | – |`,
    `| queue items | ${q.offersAcked} | ${q.offersInDoubt} (${q.inDoubtDelivered} delivered) | ${q.lost} | – | ${q.unknown} | ${q.duplicatedItems} items, ${q.duplicateDeliveries} extra deliveries |`,
    '',
  );
  const problems = [...fatal, ...faults.flatMap((f) => f.problems.map((p) => `fault ${f.kind} on m${f.victim} at ${seconds(f.at)}: ${p}`))];
  const unverified = report.violations.filter((v) => v.kind === 'unverified').length;
  lines.push(`Verdict: ${report.ok && problems.length === 0 ? 'OK' : 'FAILED'}${unverified ? ` (${unverified} unverified)` : ''}`);
  for (const p of problems) lines.push(`- ${p}`);
  const shown = report.violations.slice(0, 40);
  for (const v of shown) lines.push(`- ${v.subject} ${v.kind} (${v.phase}) ${v.where}: ${v.detail}`);
  if (report.violations.length > shown.length) lines.push(`- … and ${report.violations.length - shown.length} more`);
  if (incidents.length > 0) {
    lines.push('', `Requests without a 200/204 answer (${incidents.length}):`);
    for (const i of incidents.slice(0, 30)) lines.push(`- ${i}`);
    if (incidents.length > 30) lines.push(`- … and ${incidents.length - 30} more`);
  }
  return lines.join('\n');
}
