// The checks a map operation passes before it changes anything: split-brain protection (on the
// member that took the request and again on the partition owner) and, for writes of a
// persisted map, whether the member's log can take records now.

import { PARTITION_OWNER, SplitBrainGuard, THIS_MEMBER, type ProtectedAccess } from '../invocation/split-brain-protection.js';
import type { MapRegistry } from './map-registry.js';

export class MapProtection {
  /** Set when some map config refers to an enabled split-brain protection. */
  private readonly guard: SplitBrainGuard | undefined;

  constructor(private readonly maps: MapRegistry) {
    this.guard = SplitBrainGuard.of(maps.deps.config, maps.deps.config.maps, maps.deps.clusterSize);
  }

  /**
   * Checked twice: here, on the member that received the request (a member in a minority
   * refuses at once instead of waiting for owners it cannot reach), and on the owner that
   * runs the operation (Hazelcast's check). Backups are never refused.
   */
  guardHere(mapName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.maps.configOf(mapName).splitBrainProtectionRef, access, `map '${mapName}'`, THIS_MEMBER);
  }

  guardOwner(mapName: string, access: ProtectedAccess): void {
    if (this.guard !== undefined) this.guard.check(this.maps.configOf(mapName).splitBrainProtectionRef, access, `map '${mapName}'`, PARTITION_OWNER);
    if (access === 'WRITE') this.checkPersistable(mapName);
  }

  /**
   * A write of a persisted map is refused before it changes anything while the member's log
   * cannot take records (disk full or failed): it leaves no trace, here or on the backups.
   */
  checkPersistable(mapName: string): void {
    const refusal = this.maps.persistence?.refusal();
    if (refusal === undefined) return;
    if (this.maps.configOf(mapName).dataPersistence.enabled) throw refusal;
  }
}
