// What the WAN modules need of the layers below: one narrow bag, handed to each module through
// its WanContext, never the member itself. Kept apart from wan-context.ts so the publishers
// (which the context holds) can take it without an import cycle.

import type { Clock } from '../core/clock.js';
import type { GridErrorCode } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { GridConfig } from '../config/types.js';
import type { MemberInfo } from '../cluster/types.js';
import type { MapService } from '../map/map-service.js';
import type { MemberNet } from '../net/member-net.js';

/** What WanService needs of the layers below (a narrow bag, not the member). */
export interface WanDeps {
  readonly config: GridConfig;
  readonly net: MemberNet;
  readonly maps: MapService;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly version: string;
  readonly membership: {
    localMember(): MemberInfo;
    members(): readonly MemberInfo[];
    master(): MemberInfo | undefined;
    memberByUuid(uuid: string): MemberInfo | undefined;
  };
  readonly partitions: {
    ownerOf(partitionId: number): string | undefined;
    replicas(partitionId: number): readonly string[];
  };
  /** What this member presents to a target cluster (its member identity when security is on). */
  readonly identity: { readonly username: string; readonly password: string } | undefined;
  /** Checks a WAN peer's identity like a joining member's (security on); undefined when accepted. */
  verifyIdentity(username: string | undefined, password: string | undefined): { code: GridErrorCode; reason: string } | undefined;
}

/** Calls inside the cluster (sync start, status, config) give up after this long. */
export const MEMBER_CALL_TIMEOUT_MS = 10_000;
