// The shell examples of README.md and docs/*.md, run for real so they stay true. A block is
// tested when the line before its ```console fence is a marker:
//   <!-- doc-test -->                 every `$ command` is run; its output must be what follows it
//   <!-- doc-test status -->          only the first line of each output (an HTTP status line) must match
//   <!-- doc-test member=FILE -->     as the first, against a member started from FILE for this block
// Commands run in bash from the checkout against a member started from config/dev.yaml on a
// free port (tcp-ip off, so it joins nobody): `localhost:<port>` points at that member,
// `npx grid` at the grid under test. Outputs leave out Date, Connection and Keep-Alive headers
// (as the docs do), and the checkout's path reads `~/grid`. The blocks of one file run in order
// against one member: a block that shuts it down comes last.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { cleanEnv, GRID_BIN, REPO_ROOT, spawnGrid, within, type GridProcess } from '../support/process.js';

interface Example {
  readonly command: string;
  readonly expected: string;
}

interface Block {
  readonly line: number;
  readonly mode: 'exact' | 'status';
  readonly member: string | undefined;
  readonly examples: readonly Example[];
}

const MARKER = /^<!-- doc-test( status)?(?: member=(\S+))? -->$/;

/** The marked blocks of a Markdown file, in order. */
export function markedBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER.exec(lines[i] ?? '');
    if (m === null) continue;
    if (lines[i + 1] !== '```console') throw new Error(`line ${i + 1}: a doc-test marker must be followed by a \`\`\`console block`);
    const body: string[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j] !== '```'; j++) body.push(lines[j] ?? '');
    const examples: Example[] = [];
    let current: { command: string; out: string[] } | undefined;
    for (const l of body) {
      if (l.startsWith('$ ')) {
        if (current) examples.push({ command: current.command, expected: trimEnd(current.out.join('\n')) });
        current = { command: l.slice(2), out: [] };
      } else if (current) current.out.push(l);
      else throw new Error(`line ${i + 1}: a doc-test block must start with a "$ " command`);
    }
    if (current) examples.push({ command: current.command, expected: trimEnd(current.out.join('\n')) });
    blocks.push({ line: i + 1, mode: m[1] ? 'status' : 'exact', member: m[2], examples });
    i = j;
  }
  return blocks;
}

function trimEnd(text: string): string {
  return text.replace(/\s+$/, '');
}

/** What a reader sees, minus what the docs leave out. */
function normalize(output: string): string {
  return trimEnd(
    output
      .replace(/\r\n/g, '\n')
      .split('\n')
      .filter((l) => !/^(Date|Connection|Keep-Alive): /i.test(l))
      .join('\n')
      .replaceAll(REPO_ROOT, '~/grid'),
  );
}

/**
 * curl draws a progress meter on stderr when stdout is not a terminal; on a reader's terminal
 * there is none, so a .curlrc here switches it off (stderr is kept: it holds grid's errors).
 */
const curlHome = mkdtempSync(join(tmpdir(), 'grid-doc-curl-'));
writeFileSync(join(curlHome, '.curlrc'), 'no-progress-meter\n');
afterAll(() => rmSync(curlHome, { recursive: true, force: true }));

function run(command: string, port: number): Promise<{ code: number | null; output: string }> {
  const script = command.replace(/localhost:\d+/g, `127.0.0.1:${port}`).replace(/\bnpx grid\b/g, `node ${JSON.stringify(GRID_BIN)}`);
  const child = spawn('bash', ['-c', `${script} 2>&1`], { cwd: REPO_ROOT, env: cleanEnv({ CURL_HOME: curlHome }), stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  return within(
    new Promise((r) => child.once('close', (code) => r({ code, output }))),
    15_000,
    `${script} to finish`,
  );
}

async function startMember(config: string): Promise<{ proc: GridProcess; port: number }> {
  const proc = spawnGrid(['start', config, '--port', String(await freePort())], {
    env: cleanEnv({ HZ_NETWORK_JOIN_TCPIP_ENABLED: 'false' }),
    scope: 'file',
  });
  const port = Number((await proc.waitForStderr(/^REST on port (\d+)/m, 20_000))[1]);
  return { proc, port };
}

/** Every Markdown file of the checkout (README.md, docs/, bench/, config/examples/, ...), wherever it lives. */
function markdownFiles(dir = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(resolve(REPO_ROOT, dir), { withFileTypes: true })) {
    const path = dir === '' ? entry.name : join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist', 'test-results', 'coverage'].includes(entry.name) && !entry.name.startsWith('.')) found.push(...markdownFiles(path));
    } else if (entry.name.endsWith('.md')) found.push(path);
  }
  return found.sort();
}

const files = markdownFiles();
const marked = files
  .map((file) => ({ file, blocks: markedBlocks(readFileSync(resolve(REPO_ROOT, file), 'utf8')) }))
  .filter((f) => f.blocks.length > 0);

describe('the marker', () => {
  it('is found in the README and the tour, with its modes', () => {
    const readme = marked.find((f) => f.file === 'README.md');
    expect(readme?.blocks.length).toBeGreaterThanOrEqual(1);
    const tour = marked.find((f) => f.file === join('docs', 'tour.md'));
    expect(tour?.blocks.length).toBeGreaterThan(10);
    expect(tour?.blocks.some((b) => b.mode === 'status')).toBe(true);
    expect(tour?.blocks.some((b) => b.member !== undefined)).toBe(true);
  });

  it('every marker line of every Markdown file is a block that runs (a malformed one would be skipped silently)', () => {
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'tour.md'));
    for (const file of files) {
      const text = readFileSync(resolve(REPO_ROOT, file), 'utf8');
      const markers = text.split('\n').filter((l) => l.trimStart().startsWith('<!-- doc-test')).length;
      expect(markedBlocks(text).length, `${file}: marker lines vs blocks`).toBe(markers);
    }
  });

  it('a block is cut into commands and their outputs', () => {
    const md = ['x', '<!-- doc-test status -->', '```console', '$ echo a', 'a', '', '$ true', '```', '<!-- doc-test member=c.yaml -->', '```console', '$ b', '```'].join('\n');
    expect(markedBlocks(md)).toEqual([
      { line: 2, mode: 'status', member: undefined, examples: [{ command: 'echo a', expected: 'a' }, { command: 'true', expected: '' }] },
      { line: 9, mode: 'exact', member: 'c.yaml', examples: [{ command: 'b', expected: '' }] },
    ]);
  });
});

for (const { file, blocks } of marked) {
  describe(`shell examples of ${file}`, () => {
    let main: { proc: GridProcess; port: number } | undefined;
    const extra: GridProcess[] = [];
    beforeAll(async () => {
      main = await startMember(resolve(REPO_ROOT, 'config/dev.yaml'));
    }, 30_000);
    afterAll(async () => {
      for (const p of [main?.proc, ...extra]) {
        if (p !== undefined && p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill('SIGKILL');
          await p.exited(5_000).catch(() => undefined);
        }
      }
    });

    for (const block of blocks) {
      it(`the block at line ${block.line}${block.member ? ` (member from ${block.member})` : ''}`, async () => {
        let port = main!.port;
        if (block.member !== undefined) {
          const m = await startMember(resolve(REPO_ROOT, block.member));
          extra.push(m.proc);
          port = m.port;
        }
        for (const ex of block.examples) {
          const { output } = await run(ex.command, port);
          const actual = normalize(output);
          if (block.mode === 'status') expect(actual.split('\n')[0], ex.command).toBe(ex.expected.split('\n')[0]);
          else expect(actual, ex.command).toBe(ex.expected);
        }
        if (block.examples.some((ex) => ex.command.includes('/memberShutdown'))) {
          // The member answered first, then stops gracefully.
          expect(await main!.proc.exited(10_000)).toEqual({ code: 0, signal: null });
        }
      }, 30_000);
    }
  });
}
