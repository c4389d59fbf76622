// The one small state the WAN modules share (sink, queue replicas, member controls, sync jobs,
// added configs): the narrow deps, this cluster's name and the publishers. Each module gets this
// context and keeps its own state to itself.

import type { WanDeps } from './wan-deps.js';
import type { WanPublishers } from './wan-publishers.js';

export interface WanContext {
  readonly deps: WanDeps;
  /** This member's cluster: the origin it stamps on events and the name peers must target. */
  readonly clusterName: string;
  readonly publishers: WanPublishers;
}
