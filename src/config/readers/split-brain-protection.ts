// The split-brain-protection reader: each `split-brain-protection` (Grid counts members, as
// member-count-split-brain-protection does), and the check that every map's and queue's
// split-brain-protection-ref names one.

import { DEFAULT_SPLIT_BRAIN_PROTECTION } from '../defaults.js';
import type { Problems } from '../problems.js';
import { SPLIT_BRAIN_PROTECTION_ON, type SplitBrainProtectionConfig } from '../types.js';
import type { Section } from './section.js';
import { IGNORED_SPLIT_BRAIN_PROTECTION, OTHER_PROTECTION_FUNCTIONS } from './unused-elements.js';

export function readSplitBrainProtections(problems: Problems, s: Section): SplitBrainProtectionConfig[] {
  const out: SplitBrainProtectionConfig[] = [];
  for (const name of Object.keys(s.obj)) {
    const p = s.child(name);
    if (name.trim() === '') problems.error(p.path, 'a name must not be empty');
    if (!p.has('enabled')) {
      problems.warn(p.at('enabled'), 'not set: Hazelcast reads a split-brain-protection without enabled="true" as disabled, so this one protects nothing');
    }
    const enabled = p.bool('enabled', DEFAULT_SPLIT_BRAIN_PROTECTION.enabled);
    const minimumClusterSize = p.int('minimum-cluster-size', DEFAULT_SPLIT_BRAIN_PROTECTION.minimumClusterSize, 2);
    const protectOn = p.oneOf<SplitBrainProtectionConfig['protectOn']>('protect-on', DEFAULT_SPLIT_BRAIN_PROTECTION.protectOn, SPLIT_BRAIN_PROTECTION_ON);
    for (const key of OTHER_PROTECTION_FUNCTIONS) {
      if (!p.has(key)) continue;
      p.raw(key);
      problems.warn(p.at(key), `not supported: Grid's split-brain protection counts the data members this member sees against minimum-cluster-size (${minimumClusterSize}), as member-count-split-brain-protection does`);
    }
    // The default function, named: nothing to configure.
    p.raw('member-count-split-brain-protection');
    p.finish(IGNORED_SPLIT_BRAIN_PROTECTION);
    out.push({ name, enabled, minimumClusterSize, protectOn });
  }
  return out;
}

/**
 * A `split-brain-protection-ref` that names no declared `split-brain-protection` is a warning,
 * not an error: Hazelcast starts with it (its own full example config has one) and fails that
 * structure's operations, and so does Grid (invocation/split-brain-protection.ts).
 */
export function checkProtectionRefs(
  problems: Problems,
  protections: readonly SplitBrainProtectionConfig[],
  kind: 'map' | 'queue',
  entries: readonly { readonly name: string; readonly splitBrainProtectionRef: string | undefined }[],
): void {
  for (const e of entries) {
    const ref = e.splitBrainProtectionRef;
    if (ref !== undefined && !protections.some((p) => p.name === ref)) {
      problems.warn(
        `hazelcast.${kind}.${e.name}.split-brain-protection-ref`,
        `${kind} "${e.name}" refers to split-brain-protection "${ref}", which is not defined: the member starts, and the operations of ${kind} "${e.name}" fail with a split-brain protection error until it is defined`,
      );
    }
  }
}
