// The one validator: raw tree (Hazelcast's YAML shape, from XML, YAML, objects and the
// environment) -> GridConfig with every default filled. It never stops at the first
// mistake: every problem is collected with its element path. Nothing here echoes a password.
// This is the entry point: it reads the root's own settings and calls one reader per area
// (readers/: network, maps, queues, wan, persistence, cp, security, tuning, split-brain
// protection; the section-reader core in readers/section.ts; the Hazelcast elements Grid does
// not use in readers/unused-elements.ts), then checks the references between areas.

import { DEFAULT_CLUSTER_NAME, DEFAULT_LITE_MEMBER, DEFAULT_METRICS_ENABLED } from './defaults.js';
import type { Problems } from './problems.js';
import { readCpSubsystem } from './readers/cp.js';
import { readMaps } from './readers/maps.js';
import { readNetworkSections } from './readers/network.js';
import { readPersistence } from './readers/persistence.js';
import { readQueues } from './readers/queues.js';
import { Section, type Raw } from './readers/section.js';
import { readSecurity } from './readers/security.js';
import { checkProtectionRefs, readSplitBrainProtections } from './readers/split-brain-protection.js';
import { readProperties, readTuning } from './readers/tuning.js';
import { IGNORED_METRICS, IGNORED_TOP_LEVEL, UNSUPPORTED_TOP_LEVEL } from './readers/unused-elements.js';
import { checkWanReplicationRefs, readWan } from './readers/wan.js';
import type { GridConfig } from './types.js';

export { isHostPort } from './readers/network.js';
export { parseBool } from './readers/section.js';

/** Validates the raw tree (the content of `hazelcast:`); returns the unfrozen config, problems in `problems`. */
export function validateConfig(raw: Raw, source: string, problems: Problems): GridConfig {
  const root = Section.of(problems, 'hazelcast', raw);
  const clusterName = root.str('cluster-name', DEFAULT_CLUSTER_NAME);
  if (clusterName === '') problems.error(root.at('cluster-name'), 'must not be empty');
  const instanceName = root.optStr('instance-name') || undefined;
  const lite = root.child('lite-member');
  const liteMember = lite.bool('enabled', DEFAULT_LITE_MEMBER);
  lite.finish();
  const metricsSection = root.child('metrics');
  const metrics = { enabled: metricsSection.bool('enabled', DEFAULT_METRICS_ENABLED) };
  metricsSection.finish(IGNORED_METRICS);
  const properties = readProperties(problems, root.child('properties'));
  const tuning = readTuning(problems, properties);

  const { network, advanced } = readNetworkSections(problems, root);

  const persistence = readPersistence(problems, root);
  const cpSubsystem = readCpSubsystem(problems, root.child('cp-subsystem'));
  const maps = readMaps(problems, root.child('map'), persistence.enabled);
  const queues = readQueues(problems, root.child('queue'), persistence.enabled);
  const security = readSecurity(problems, root.child('security'));
  const wanReplication = readWan(problems, root.child('wan-replication'));
  const splitBrainProtections = readSplitBrainProtections(problems, root.child('split-brain-protection'));
  checkProtectionRefs(problems, splitBrainProtections, 'map', maps);
  checkProtectionRefs(problems, splitBrainProtections, 'queue', queues);
  checkWanReplicationRefs(problems, wanReplication, maps);
  root.unsupported(UNSUPPORTED_TOP_LEVEL);
  root.finish(IGNORED_TOP_LEVEL);

  return {
    clusterName,
    instanceName,
    properties,
    network,
    advancedNetwork: advanced,
    maps,
    queues,
    security,
    wanReplication,
    splitBrainProtections,
    persistence,
    cpSubsystem,
    liteMember,
    metrics,
    tuning,
    source,
  };
}
