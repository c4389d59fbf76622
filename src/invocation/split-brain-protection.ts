// Split-brain protection (Hazelcast's `split-brain-protection`): a map or queue that refers to
// an enabled protection refuses the operations it guards while the member running them sees
// fewer data members than the protection's minimum. A pure rule and a small guard the data
// services hold; the count comes from the member list through a function given at start.

import { GridError } from '../core/errors.js';
import { findSplitBrainProtection, type GridConfig, type SplitBrainProtectionConfig } from '../config/index.js';

/** What an operation does, for `protect-on`: READ_WRITE protections guard both. */
export type ProtectedAccess = 'READ' | 'WRITE';

/**
 * The refusal of an operation of kind `access` on `subject` (`map 'm'`) under `p` when `who`
 * (`this member`, `the partition owner`) sees `seen` data members; undefined = allowed.
 */
export function protectionRefusal(
  p: SplitBrainProtectionConfig,
  access: ProtectedAccess,
  seen: number,
  subject: string,
  who: string,
): GridError | undefined {
  if (!p.enabled || (p.protectOn !== 'READ_WRITE' && p.protectOn !== access)) return undefined;
  if (seen >= p.minimumClusterSize) return undefined;
  return new GridError(
    'SPLIT_BRAIN_PROTECTION',
    `split-brain protection '${p.name}' for ${subject}: ${who} sees ${seen} of the ${p.minimumClusterSize} members it needs`,
  );
}

/** A data service's view of the protections: which one guards a structure, and the check. */
export class SplitBrainGuard {
  private constructor(
    private readonly config: GridConfig,
    private readonly clusterSize: () => number,
  ) {}

  /**
   * A guard when some entry of `entries` (the service's map or queue configs) refers to an
   * enabled protection; undefined otherwise, so that unprotected services pay nothing.
   */
  static of(
    config: GridConfig,
    entries: readonly { readonly splitBrainProtectionRef: string | undefined }[],
    clusterSize: () => number,
  ): SplitBrainGuard | undefined {
    const used = entries.some((e) => findSplitBrainProtection(config, e.splitBrainProtectionRef) !== undefined);
    return used ? new SplitBrainGuard(config, clusterSize) : undefined;
  }

  /** Throws the refusal when the protection `ref` guards `access` and the member sees too few members. */
  check(ref: string | undefined, access: ProtectedAccess, subject: string, who: string): void {
    const p = findSplitBrainProtection(this.config, ref);
    if (p === undefined) return;
    const refusal = protectionRefusal(p, access, this.clusterSize(), subject, who);
    if (refusal !== undefined) throw refusal;
  }
}

/** A service on its own (unit tests): a cluster of one. */
export const ALONE_SIZE = (): number => 1;

/** In messages: the member that received the request, and the one that runs the operation. */
export const THIS_MEMBER = 'this member';
export const PARTITION_OWNER = 'the partition owner';
