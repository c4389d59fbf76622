// Split-brain protection (Hazelcast's `split-brain-protection`): a map or queue that refers to
// an enabled protection refuses the operations it guards while the member running them sees
// fewer data members than the protection's minimum. A pure rule, a small guard, and the checks
// every map and queue operation passes before it changes anything (StructureProtection, one
// rule for both services); the count comes from the member list through a function given at start.

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

/** `ref` names a split-brain-protection that the config does not define (a disabled one is defined). */
function isMissing(config: GridConfig, ref: string | undefined): boolean {
  return ref !== undefined && !config.splitBrainProtections.some((x) => x.name === ref);
}

/** Every operation of a structure whose split-brain-protection-ref names no rule: refused as a protection failure, saying why. */
export function missingProtection(ref: string, subject: string): GridError {
  return new GridError('SPLIT_BRAIN_PROTECTION', `split-brain protection '${ref}' for ${subject} is not defined in the configuration: its operations are refused until it is`);
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
    const used = entries.some((e) => findSplitBrainProtection(config, e.splitBrainProtectionRef) !== undefined || isMissing(config, e.splitBrainProtectionRef));
    return used ? new SplitBrainGuard(config, clusterSize) : undefined;
  }

  /**
   * Throws the refusal when the protection `ref` guards `access` and the member sees too few
   * members, or when no protection named `ref` is defined at all (Hazelcast starts with such a
   * config and fails the structure's operations; the config loader warned at start).
   */
  check(ref: string | undefined, access: ProtectedAccess, subject: string, who: string): void {
    const p = findSplitBrainProtection(this.config, ref);
    if (p === undefined) {
      if (isMissing(this.config, ref)) throw missingProtection(ref!, subject);
      return;
    }
    const refusal = protectionRefusal(p, access, this.clusterSize(), subject, who);
    if (refusal !== undefined) throw refusal;
  }
}

/** What the checks read of a map's or queue's config (a MapConfig or QueueConfig). */
export interface ProtectedStructureConfig {
  readonly splitBrainProtectionRef: string | undefined;
  readonly dataPersistence: { readonly enabled: boolean };
}

/** The member's persistence as the checks see it: why its log cannot take records now, if it cannot. */
export interface LogRefusal {
  refusal(): GridError | undefined;
}

/** What a data service gives its StructureProtection (functions, read on every check). */
export interface StructureProtectionDeps {
  /** In messages: `map`, `queue`. */
  readonly kind: string;
  readonly config: GridConfig;
  /** The service's entries of the config (config.maps, config.queues): is any of them protected? */
  readonly entries: readonly { readonly splitBrainProtectionRef: string | undefined }[];
  /** Data members in this member's list. */
  readonly clusterSize: () => number;
  /** The structure's config (its own or the matching pattern's). */
  readonly configOf: (name: string) => ProtectedStructureConfig;
  /** The member's persistence, once plugged in; undefined = none. */
  readonly persistence: () => LogRefusal | undefined;
}

/**
 * The checks a map or queue operation passes before it changes anything: split-brain protection
 * (on the member that took the request and again on the partition owner) and, for writes of a
 * persisted structure, whether the member's log can take records now. One rule for both data
 * services, so a map and a queue under the same protection refuse alike.
 */
export class StructureProtection {
  /** Set when some entry refers to an enabled protection: unprotected services pay one compare. */
  private readonly guard: SplitBrainGuard | undefined;

  constructor(private readonly deps: StructureProtectionDeps) {
    this.guard = SplitBrainGuard.of(deps.config, deps.entries, deps.clusterSize);
  }

  /**
   * Checked twice: here, on the member that received the request (a member in a minority
   * refuses at once instead of waiting for owners it cannot reach), and on the owner that runs
   * the operation (Hazelcast's check). Backups, confirms and releases of queue poll
   * reservations and empty-queue-ttl destroys are never checked: they finish work already allowed.
   */
  guardHere(name: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.deps.configOf(name).splitBrainProtectionRef, access, `${this.deps.kind} '${name}'`, THIS_MEMBER);
  }

  guardOwner(name: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.deps.configOf(name).splitBrainProtectionRef, access, `${this.deps.kind} '${name}'`, PARTITION_OWNER);
    if (access === 'WRITE') this.checkPersistable(name);
  }

  /**
   * A write of a persisted structure (a map write, a queue offer or poll) is refused before it
   * changes anything while the member's log cannot take records (disk full or failed): it
   * leaves no trace, here or on the backups.
   */
  checkPersistable(name: string): void {
    const refusal = this.deps.persistence()?.refusal();
    if (refusal === undefined) return;
    if (this.deps.configOf(name).dataPersistence.enabled) throw refusal;
  }
}

/** A service on its own (unit tests): a cluster of one. */
export const ALONE_SIZE = (): number => 1;

/** In messages: the member that received the request, and the one that runs the operation. */
export const THIS_MEMBER = 'this member';
export const PARTITION_OWNER = 'the partition owner';
