// `grid tls reload`: the member at --address rereads its TLS key and certificate files now (what
// SIGHUP does on its own machine), for certificate rotation; it says the certificate now in use
// per endpoint, or why the new files were refused (the old certificate then stays).

import type { Command } from 'commander';
import { leaf, runAction, type AdminEnv } from './context.js';
import { CliError, EXIT } from './outcome.js';

type Outcome = { changed: boolean; subject: string; notAfter: string } | { error: string };

export function registerTlsCommands(program: Command, io: AdminEnv): void {
  const tls = program.command('tls').description("The member's TLS certificates.");
  leaf(tls, 'reload', 'Reread the TLS files of the member at --address; new connections take them (the old stay in use when they are broken).').action(
    runAction(io, async (ctx) => {
      const { reply, value } = await ctx.postJson<{ status: string; endpoints: Record<string, Outcome> }>('tls reload', 'rest/tls/reload');
      if (ctx.json) ctx.printRaw(reply);
      const lines = Object.entries(value.endpoints ?? {}).map(([name, o]) =>
        'error' in o ? `${name}: refused, the current certificate stays: ${o.error}` : `${name}: ${o.changed ? 'new certificate' : 'unchanged'} ${o.subject}, valid until ${o.notAfter}`,
      );
      if (value.status !== 'success') throw new CliError(EXIT.MEMBER_ERROR, `${ctx.address}: tls reload: ${lines.join('; ')}`);
      if (!ctx.json) for (const l of lines) ctx.print(`${ctx.address}: ${l}`);
    }),
  );
}
