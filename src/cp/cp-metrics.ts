// CP subsystem metrics (docs/metrics.md): read at scrape time from the Raft groups this member
// hosts (CpService.status(), the figures of the cp-subsystem endpoints).

import type { MetricsRegistrar } from '../core/metrics.js';
import type { CpLocalStatus } from './cp-service.js';

export function reportCpMetrics(r: MetricsRegistrar, status: () => CpLocalStatus): void {
  let now: CpLocalStatus | undefined;
  r.beforeScrape(() => {
    now = status();
  });
  r.gauge({ name: 'grid_cp_member', help: '1 when this member is a CP member (holds a CP seat), else 0' }, (report) => report(now?.cpMemberUuid === undefined ? 0 : 1));
  const group = (name: string, help: string, read: (g: CpLocalStatus['groups'][number]) => number): void =>
    r.gauge({ name, help, labelNames: ['group'] }, (report) => {
      for (const g of now?.groups ?? []) report(read(g), { group: g.name });
    });
  group('grid_cp_group_leader', '1 when this member is the Raft leader of the CP group, else 0 (one series per group hosted here)', (g) => (g.role === 'leader' ? 1 : 0));
  group('grid_cp_group_term', "The group's Raft term as this member knows it", (g) => g.term);
  group('grid_cp_group_commit_index', "The group's Raft commit index as this member knows it", (g) => g.commitIndex);
  group('grid_cp_group_last_applied', 'The last log index this member applied to its copy of the group state', (g) => g.lastApplied);
  group('grid_cp_group_members', 'CP members of the group', (g) => g.members.length);
}
