// WAN configs added at run time (addWanConfig): parsed, added on every member, kept in order
// and handed to members that join later (they fetch them from the master).

import { describeError } from '../core/errors.js';
import * as f from '../protocol/fields.js';
import { Msg } from '../protocol/messages.js';
import { decodeWanAddAnswer } from '../protocol/wan-payloads.js';
import type { WanAddResult } from './wan-facade.js';
import { parseWanConfigJson, wanConfigToJson } from './wan-config-json.js';
import type { WanContext } from './wan-context.js';
import { MEMBER_CALL_TIMEOUT_MS } from './wan-deps.js';

export class WanAddedConfigs {
  /** Configs added at run time, as JSON, in order: handed to members that join later. */
  private readonly texts: string[] = [];

  constructor(private readonly ctx: WanContext) {}

  /** The configs added so far, for a joining member's WanConfigs call. */
  list(): string[] {
    return [...this.texts];
  }

  async addConfigJson(json: string): Promise<WanAddResult> {
    const cfg = parseWanConfigJson(json);
    const text = wanConfigToJson(cfg);
    const result = this.apply(text);
    const me = this.ctx.deps.membership.localMember().uuid;
    await Promise.all(
      this.ctx.deps.membership
        .members()
        .filter((m) => m.uuid !== me)
        .map((m) =>
          this.ctx.deps.net
            .request(m.address, Msg.WanAddConfig, [text], MEMBER_CALL_TIMEOUT_MS)
            .then(decodeWanAddAnswer)
            .catch((e: unknown) => this.ctx.deps.logger.warn({ member: m.address }, `WAN config "${cfg.name}" not added on ${m.address}: ${describeError(e)}`)),
        ),
    );
    return { addedPublisherIds: result.added, ignoredPublisherIds: result.ignored };
  }

  /** Add one config (as JSON) on this member; kept for members that join later when it added a publisher. */
  apply(text: string): { added: string[]; ignored: string[] } {
    const cfg = parseWanConfigJson(text);
    const r = this.ctx.publishers.add(cfg);
    if (r.addedPublisherIds.length > 0) {
      this.texts.push(text);
      this.ctx.deps.logger.info({ wanReplication: cfg.name, added: r.addedPublisherIds }, `WAN replication "${cfg.name}": publishers ${r.addedPublisherIds.join(', ')} added at run time`);
    }
    return { added: [...r.addedPublisherIds], ignored: [...r.ignoredPublisherIds] };
  }

  /** A member that joined takes the configs the cluster added at run time. */
  fetchFromMaster(): void {
    const master = this.ctx.deps.membership.master();
    if (master === undefined || master.uuid === this.ctx.deps.membership.localMember().uuid) return;
    this.ctx.deps.net.request(master.address, Msg.WanConfigs, [], MEMBER_CALL_TIMEOUT_MS).then(
      (v) => {
        for (const text of f.strings([v], 0, 'wan configs')) {
          try {
            this.apply(text);
          } catch (e) {
            this.ctx.deps.logger.warn(`WAN config from the master not added: ${describeError(e)}`);
          }
        }
      },
      (e: unknown) => this.ctx.deps.logger.warn(`WAN configs added at run time could not be fetched from the master: ${describeError(e)}`),
    );
  }
}
