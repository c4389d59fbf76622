// The WAN endpoints under rest/wan/: publisher pause/resume/stop/clear, sync, consistency
// checks and addWanConfig (POST, with credentials), sync and check progress (GET).

import { GridError } from '../core/errors.js';
import type { WanFacade } from '../wan/wan-facade.js';
import { decodeSegment } from './paths.js';
import { sendJson } from './respond.js';
import { isGet, paramRoute, unknown, type Method, type Route } from './route-kit.js';

/** The WAN POSTs that act on one publisher of this member, with their answer's message. */
const WAN_PUBLISHER_OPS: Readonly<Record<string, { readonly message: string; readonly act: (w: WanFacade, rep: string, pub: string) => void }>> = {
  pausePublisher: { message: 'WAN publisher paused', act: (w, rep, pub) => w.pausePublisher(rep, pub) },
  resumePublisher: { message: 'WAN publisher resumed', act: (w, rep, pub) => w.resumePublisher(rep, pub) },
  stopPublisher: { message: 'WAN publisher stopped', act: (w, rep, pub) => w.stopPublisher(rep, pub) },
  clearWanQueues: { message: 'WAN replication queues are cleared.', act: (w, rep, pub) => w.clearQueues(rep, pub) },
};

/** `op` is the encoded path after `rest/wan/`, without a trailing `/`. */
export function wanRoute(method: Method, op: string): Route {
  const path = `rest/wan/${op}`;
  if (isGet(method)) {
    // GETs take no credentials (grid-behavior.md §7 protects only health/cluster-state and log-level).
    const uuid = wanUuid(op, 'sync/progress/');
    if (uuid !== undefined) {
      return {
        group: 'WAN',
        readsBody: false,
        run: (r, d) => d.wan.syncProgress(uuid).then((result) => sendJson(r.res, { status: 'success', result })),
      };
    }
    const checkUuid = wanUuid(op, 'consistencyCheck/');
    if (checkUuid !== undefined && checkUuid !== 'map') {
      return {
        group: 'WAN',
        readsBody: false,
        run: (r, d) => d.wan.consistencyResult(checkUuid).then((result) => sendJson(r.res, { status: 'success', result })),
      };
    }
    throw unknown(method, path);
  }
  if (method !== 'POST') throw unknown(method, path);
  const publisherOp = Object.hasOwn(WAN_PUBLISHER_OPS, op) ? WAN_PUBLISHER_OPS[op] : undefined;
  if (publisherOp !== undefined) {
    return paramRoute('WAN', 4, 4, (r, d, [rep = '', pub = '']) => {
      publisherOp.act(d.wan, rep, pub);
      sendJson(r.res, { status: 'success', message: publisherOp.message });
    });
  }
  switch (op) {
    case 'sync/map':
      return mapJobRoute('Sync initiated', (w, rep, pub, map) => w.startSync(rep, pub, map));
    case 'sync/allmaps':
      return paramRoute('WAN', 4, 4, async (r, d, [rep = '', pub = '']) => {
        const uuid = await d.wan.startSync(rep, pub, undefined);
        sendJson(r.res, { status: 'success', message: 'Sync initiated', uuid });
      });
    case 'consistencyCheck/map':
      return mapJobRoute('Consistency check initiated', (w, rep, pub, map) => w.startConsistencyCheck(rep, pub, map));
    case 'addWanConfig':
      // Text beyond the second `&` is the JSON (which may itself contain `&`).
      return paramRoute('WAN', 3, 3, async (r, d, [json = '']) => {
        const { addedPublisherIds, ignoredPublisherIds } = await d.wan.addConfigJson(json);
        sendJson(r.res, { status: 'success', message: 'WAN configuration added.', addedPublisherIds, ignoredPublisherIds });
      });
  }
  throw unknown(method, path);
}

/** A WAN job on one map (`<rep>&<pub>&<map>` after the credentials), answered with its uuid. */
function mapJobRoute(message: string, start: (w: WanFacade, rep: string, pub: string, map: string) => Promise<string>): Route {
  return paramRoute('WAN', 5, 5, async (r, d, [rep = '', pub = '', mapName = '']) => {
    const uuid = await start(d.wan, rep, pub, requiredMapName(mapName));
    sendJson(r.res, { status: 'success', message, uuid });
  });
}

/** The decoded uuid of `<prefix><uuid>` (one non-empty segment), else undefined. */
function wanUuid(op: string, prefix: string): string | undefined {
  if (!op.startsWith(prefix)) return undefined;
  const raw = op.slice(prefix.length);
  if (raw.length === 0 || raw.includes('/')) return undefined;
  return decodeSegment(raw, 'uuid');
}

function requiredMapName(mapName: string | undefined): string {
  if (mapName === undefined || mapName === '') throw new GridError('BAD_REQUEST', 'missing map name (parameter 5)');
  return mapName;
}
