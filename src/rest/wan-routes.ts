// The WAN endpoints' handlers: publisher pause/resume/stop/clear, sync, consistency checks and
// addWanConfig (POST, with credentials), sync and check progress (GET), this member's publishers
// (GET rest/wan); their paths are rows of route-table.ts.

import { GridError } from '../core/errors.js';
import type { WanFacade } from '../wan/wan-facade.js';
import type { RestDeps } from './context.js';
import { sendJson } from './respond.js';
import type { Handler, Request } from './route-kit.js';

/** The WAN POSTs that act on one publisher of this member, with their answer's message. */
const WAN_PUBLISHER_OPS = {
  pausePublisher: { message: 'WAN publisher paused', act: (w, rep, pub) => w.pausePublisher(rep, pub) },
  resumePublisher: { message: 'WAN publisher resumed', act: (w, rep, pub) => w.resumePublisher(rep, pub) },
  stopPublisher: { message: 'WAN publisher stopped', act: (w, rep, pub) => w.stopPublisher(rep, pub) },
  clearWanQueues: { message: 'WAN replication queues are cleared.', act: (w, rep, pub) => w.clearQueues(rep, pub) },
} as const satisfies Readonly<Record<string, { readonly message: string; readonly act: (w: WanFacade, rep: string, pub: string) => void }>>;

/** POST rest/wan/<op> for the publisher ops: pause, resume, stop, clear queues. */
export function publisherCommand(op: keyof typeof WAN_PUBLISHER_OPS): Handler {
  const { message, act } = WAN_PUBLISHER_OPS[op];
  return (r, d, _path, [rep = '', pub = '']) => {
    act(d.wan, rep, pub);
    sendJson(r.res, { status: 'success', message });
  };
}

export const syncMap: Handler = mapJob('Sync initiated', (w, rep, pub, map) => w.startSync(rep, pub, map));

export const consistencyCheckMap: Handler = mapJob('Consistency check initiated', (w, rep, pub, map) => w.startConsistencyCheck(rep, pub, map));

export async function syncAllMaps(r: Request, d: RestDeps, _path: readonly string[], [rep = '', pub = '']: readonly string[]): Promise<void> {
  const uuid = await d.wan.startSync(rep, pub, undefined);
  sendJson(r.res, { status: 'success', message: 'Sync initiated', uuid });
}

/** Text beyond the second `&` is the JSON (which may itself contain `&`). */
export async function addWanConfig(r: Request, d: RestDeps, _path: readonly string[], [json = '']: readonly string[]): Promise<void> {
  const { addedPublisherIds, ignoredPublisherIds } = await d.wan.addConfigJson(json);
  sendJson(r.res, { status: 'success', message: 'WAN configuration added.', addedPublisherIds, ignoredPublisherIds });
}

// GETs take no credentials (grid-behavior.md §7 protects only health/cluster-state and log-level).
export async function syncProgress(r: Request, d: RestDeps, [uuid]: readonly string[]): Promise<void> {
  const result = await d.wan.syncProgress(uuid!);
  sendJson(r.res, { status: 'success', result });
}

export async function consistencyResult(r: Request, d: RestDeps, [uuid]: readonly string[]): Promise<void> {
  const result = await d.wan.consistencyResult(uuid!);
  sendJson(r.res, { status: 'success', result });
}

/** Grid's own GET rest/wan: the WAN publishers of this member (a read of member state, not a WAN operation). */
export function wanStatus(r: Request, d: RestDeps): void {
  sendJson(r.res, { publishers: d.wan.status() });
}

/** A WAN job on one map (`<rep>&<pub>&<map>` after the credentials), answered with its uuid. */
function mapJob(message: string, start: (w: WanFacade, rep: string, pub: string, map: string) => Promise<string>): Handler {
  return async (r, d, _path, [rep = '', pub = '', mapName = '']) => {
    const uuid = await start(d.wan, rep, pub, requiredMapName(mapName));
    sendJson(r.res, { status: 'success', message, uuid });
  };
}

function requiredMapName(mapName: string | undefined): string {
  if (mapName === undefined || mapName === '') throw new GridError('BAD_REQUEST', 'missing map name (parameter 5)');
  return mapName;
}
