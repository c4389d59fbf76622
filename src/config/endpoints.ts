// Where a member listens and what it serves there, derived from the config in one place:
// the member port (advanced network's member endpoint, else network/port), and REST either on
// that port or, with an advanced-network REST endpoint, on its own port.

import type { EndpointGroupName, GridConfig, PortConfig } from './types.js';

export interface ListenPlan {
  readonly memberPort: PortConfig;
  /** REST's own port; undefined when REST shares the member port (or is off). */
  readonly restPort: PortConfig | undefined;
  /** Enabled endpoint groups; empty when REST is off. */
  readonly restGroups: ReadonlySet<EndpointGroupName>;
}

const NONE: ReadonlySet<EndpointGroupName> = new Set();

export function listenPlan(config: GridConfig): ListenPlan {
  const adv = config.advancedNetwork;
  if (adv.enabled) {
    return { memberPort: adv.memberPort, restPort: adv.rest?.port, restGroups: adv.rest?.enabledGroups ?? NONE };
  }
  const rest = config.network.restApi;
  return { memberPort: config.network.port, restPort: undefined, restGroups: rest.enabled ? rest.enabledGroups : NONE };
}
