// The TLS side of one member, built from the config's TLS plan: which listener takes which
// endpoint, how member and WAN dials connect, and one reload for all (SIGHUP, the CLI, file
// changes). Built at start: a broken file stops the start with a sentence naming it.

import net from 'node:net';
import type { Logger } from '../../core/logger.js';
import type { SslConfig, TlsPlan } from '../../config/index.js';
import type { Dialer } from '../member-net.js';
import { TlsEndpoint, type ReloadOutcome } from './tls-endpoint.js';

export class TlsEndpoints {
  readonly member: TlsEndpoint | undefined;
  readonly rest: TlsEndpoint | undefined;
  readonly wan: TlsEndpoint | undefined;
  /** Outbound member and WAN connections; undefined when neither uses TLS. */
  readonly dialer: Dialer | undefined;

  /** Throws a CONFIG_INVALID GridError when a file is missing, unreadable, expired or mismatched. */
  constructor(plan: TlsPlan, logger: Logger) {
    // One endpoint per distinct ssl element: REST on the member port shares the member's.
    const built = new Map<SslConfig, TlsEndpoint>();
    const endpoint = (ssl: SslConfig | undefined, name: string): TlsEndpoint | undefined => {
      if (ssl === undefined) return undefined;
      let e = built.get(ssl);
      if (e === undefined) {
        e = new TlsEndpoint(ssl, name, logger);
        built.set(ssl, e);
      }
      return e;
    };
    this.member = endpoint(plan.member, 'member');
    this.rest = endpoint(plan.rest, 'rest');
    this.wan = endpoint(plan.wan, 'wan');
    const { member, wan } = this;
    if (member !== undefined || wan !== undefined) {
      this.dialer = (host, port, purpose) => {
        const e = purpose === 'member' ? member : wan;
        if (e === undefined) return { socket: net.connect({ host, port, noDelay: true }), ready: 'connect' };
        // Members dial addresses their certificates rarely name: the chain is checked, the name only on request. WAN targets: both.
        return { socket: e.connect(host, port, purpose === 'wan'), ready: 'secureConnect' };
      };
    }
    for (const e of new Set(built.values())) {
      logger.info({ subject: e.current.subject, notAfter: e.current.notAfter.toISOString() }, `TLS on (${e.name}): ${e.ssl.protocol}, mutual authentication ${e.ssl.mutualAuthentication}`);
    }
  }

  private all(): TlsEndpoint[] {
    return [...new Set([this.member, this.rest, this.wan].filter((e): e is TlsEndpoint => e !== undefined))];
  }

  get enabled(): boolean {
    return this.all().length > 0;
  }

  /** Reads every endpoint's files again (SIGHUP, the CLI); broken files leave the old certificate in use. */
  reload(reason: string): Record<string, ReloadOutcome> {
    const out: Record<string, ReloadOutcome> = {};
    for (const e of this.all()) out[e.name] = e.reload(reason);
    return out;
  }

  watchFiles(): void {
    for (const e of this.all()) e.watchFiles();
  }

  close(): void {
    for (const e of this.all()) e.close();
  }
}
