// Cluster test harness: real members as `node bin/grid.js start` child processes on fixed
// loopback ports (from `freePorts`), each listing every port of the cluster (plus spares for
// members added later). Waits poll the REST surface with a deadline and report what they last saw; every
// process started here is killed after the test, pass or fail.

import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach } from 'vitest';
import { freePorts } from './ports.js';
import { cleanEnv, spawnGrid, waitFor, within, type GridProcess } from './process.js';

// ---------------------------------------------------------------- shapes of the REST answers

export interface MemberView {
  readonly address: string;
  readonly liteMember: boolean;
  readonly localMember: boolean;
  readonly uuid: string;
  readonly memberVersion: string;
}

export interface ClusterInfo {
  readonly members: readonly MemberView[];
  readonly connectionCount: number;
  readonly allConnectionCount: number;
}

export interface Health {
  readonly nodeState: string;
  readonly clusterState: string;
  readonly clusterSafe: boolean;
  readonly migrationQueueSize: number;
  readonly clusterSize: number;
}

export interface PartitionsInfo {
  readonly version: number;
  readonly partitionCount: number;
  readonly replicaCount: number;
  readonly migrationQueueSize: number;
  readonly clusterSafe: boolean;
  readonly members: readonly { readonly uuid: string; readonly address: string; readonly owned: number; readonly backups: number }[];
  /** Per partition: owner uuid first, then the backups (null/absent where a replica is missing). */
  readonly partitions: readonly (readonly (string | null)[])[];
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A request that failed on a reused keep-alive socket the server had closed (it never read the request). */
class StaleSocketError extends Error {}

// ---------------------------------------------------------------- options

/** A raw config fragment, YAML shape of the content of `hazelcast:`; deep-merged over the defaults. */
export type ConfigFragment = Record<string, unknown>;

export interface ClusterOptions {
  /** Members started at once. */
  readonly size: number;
  /** Extra config for member `i` (also called for members added later), deep-merged last. */
  readonly config?: (i: number) => ConfigFragment;
  /** Default `dev`. */
  readonly clusterName?: string;
  /** Indexes of the members started as lite members. */
  readonly lite?: readonly number[];
  /** Extra `hazelcast.properties`, over the harness's (heartbeat 1 s, max no heartbeat 5 s). */
  readonly properties?: Record<string, string | number | boolean>;
  /** Ports reserved beyond `size` (and listed by everyone) for `addMember()`. Default 2. */
  readonly spare?: number;
  /**
   * What `startCluster` waits for: `safe` (default) = every member up, all listing `size`
   * members, cluster safe; `up` = every member answers REST (no convergence asked).
   */
  readonly wait?: 'safe' | 'up';
  /** Deadline of that wait. Default 30 s. */
  readonly timeoutMs?: number;
  /** The IP member `i` binds and is reached at (default 127.0.0.1): members in network namespaces. */
  readonly hostOf?: (i: number) => string;
  /** A command prefix for member `i`'s process (e.g. `ip netns exec <ns>`). */
  readonly prefixOf?: (i: number) => readonly string[];
  /**
   * `test` (default): killed after the test that started it. `file`: kept across the tests of
   * the file, for a cluster started in `beforeAll`; the caller destroys it in `afterAll` (it is
   * killed anyway when the test worker exits).
   */
  readonly scope?: 'test' | 'file';
  /** The members speak HTTPS: the harness trusts `ca` (PEM) and shows `cert`/`key` when given. */
  readonly tls?: { readonly ca: string; readonly cert?: string; readonly key?: string };
  /** Extra environment of the member processes (e.g. the C allocator's settings). */
  readonly env?: Readonly<Record<string, string>>;
}

export type MemberStatus = 'running' | 'killed' | 'stopped' | 'exited';

export interface ClusterMember {
  readonly index: number;
  readonly port: number;
  /** `127.0.0.1:<port>`, as /rest/cluster names it. */
  readonly address: string;
  readonly lite: boolean;
  readonly configPath: string;
  readonly process: GridProcess;
  /** Known once the member answered /rest/cluster (after `waitUp`). */
  uuid: string | undefined;
  status: MemberStatus;
  /** stdout + stderr so far. */
  output(): string;
  /** The `msg` of every JSON log line so far. */
  logMessages(): string[];
}

const HARNESS_PROPERTIES = {
  'hazelcast.heartbeat.interval.seconds': 1,
  'hazelcast.max.no.heartbeat.seconds': 5,
};

const REST_GROUPS = ['DATA', 'CLUSTER_WRITE', 'CLUSTER_READ', 'HEALTH_CHECK'];

// ---------------------------------------------------------------- small utilities


function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `over` merged into `base`: objects recursively, anything else (arrays too) replaced. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isPlainObject(b) && isPlainObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function parseJsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line still being written
    }
  }
  return out;
}

// ---------------------------------------------------------------- cleanup

const liveClusters = new Set<Cluster>();
/** Clusters of scope `file`: left alone by the per-test cleanup, destroyed by their file. */
const fileClusters = new Set<Cluster>();

afterEach(async (ctx) => {
  const clusters = [...liveClusters];
  liveClusters.clear();
  const failed = ctx.task.result?.state === 'fail';
  await Promise.all(clusters.map((c) => c.destroy({ keepFiles: failed, report: failed })));
});

// A test worker that exits, or loses its vitest parent (killed, Ctrl-C'd), takes its
// members along rather than leaving them running.
const killEverything = (): void => {
  for (const c of [...liveClusters, ...fileClusters]) c.killAllNow();
};
process.once('exit', killEverything);
process.once('disconnect', killEverything);

// ---------------------------------------------------------------- the cluster

export class Cluster {
  readonly members: ClusterMember[] = [];
  private readonly agents = new Map<number, http.Agent>();
  /** Write loads on this cluster, stopped by `destroy` when a test left them running. */
  readonly loads = new Set<{ stop(): Promise<void> }>();
  private destroyed = false;
  /** Indexes of members stopped with `pause` (SIGSTOP) and not resumed yet. */
  readonly paused = new Set<number>();
  /** How many times each member index was restarted (names the saved logs of earlier runs). */
  private readonly restarts = new Map<number, number>();

  private constructor(
    readonly opts: ClusterOptions,
    readonly clusterName: string,
    /** Every reserved port; each member lists all of them. */
    readonly ports: readonly number[],
    readonly dir: string,
  ) {}

  /** Starts the processes; use `startCluster`. */
  static async create(opts: ClusterOptions): Promise<Cluster> {
    const ports = await freePorts(opts.size + (opts.spare ?? 2));
    const c = new Cluster(opts, opts.clusterName ?? 'dev', ports, mkdtempSync(join(tmpdir(), 'grid-cluster-')));
    (opts.scope === 'file' ? fileClusters : liveClusters).add(c);
    for (let i = 0; i < opts.size; i++) c.spawnMember(opts.lite?.includes(i) ?? false);
    return c;
  }

  /** The IP of member `i` (127.0.0.1 unless the cluster puts members elsewhere). */
  hostOf(i: number): string {
    return this.opts.hostOf?.(i) ?? '127.0.0.1';
  }

  /** The raw config (content of `hazelcast:`) of member `i` on `port`. */
  configOf(i: number, port: number, lite: boolean): ConfigFragment {
    const base: ConfigFragment = {
      'cluster-name': this.clusterName,
      network: {
        port: { port, 'auto-increment': false },
        interfaces: { enabled: true, interfaces: [this.hostOf(i)] },
        join: {
          multicast: { enabled: false },
          'tcp-ip': { enabled: true, 'member-list': this.ports.map((p, j) => `${this.hostOf(j)}:${p}`) },
        },
        'rest-api': { enabled: true, 'endpoint-groups': Object.fromEntries(REST_GROUPS.map((g) => [g, { enabled: true }])) },
      },
      'lite-member': { enabled: lite },
      properties: { ...HARNESS_PROPERTIES, ...(this.opts.properties ?? {}) },
      map: { default: { 'backup-count': 1 } },
      queue: { default: { 'backup-count': 1 } },
    };
    return this.opts.config ? deepMerge(base, this.opts.config(i)) : base;
  }

  private spawnMember(lite: boolean, extra?: ConfigFragment): ClusterMember {
    const index = this.members.length;
    const port = this.ports[index];
    if (port === undefined) {
      throw new Error(`no spare port left for member ${index}: start the cluster with spare >= ${index - this.opts.size + 1}`);
    }
    const raw = extra ? deepMerge(this.configOf(index, port, lite), extra) : this.configOf(index, port, lite);
    const configPath = join(this.dir, `member-${index}.yaml`);
    writeFileSync(configPath, stringify({ hazelcast: raw }));
    const m = this.launch(index, port, lite, configPath);
    this.members.push(m);
    return m;
  }

  /** Spawns the process of member `index` from its config file (a first start or a restart). */
  private launch(index: number, port: number, lite: boolean, configPath: string): ClusterMember {
    this.paused.delete(index);
    const proc = spawnGrid(['start', '--config', configPath], { prefix: this.opts.prefixOf?.(index), scope: this.opts.scope, env: cleanEnv(this.opts.env) });
    const output = (): string => proc.stdout() + (proc.stderr() ? `\n[stderr]\n${proc.stderr()}` : '');
    const m: ClusterMember = {
      index,
      port,
      address: `${this.hostOf(index)}:${port}`,
      lite,
      configPath,
      process: proc,
      uuid: undefined,
      status: 'running',
      output,
      logMessages: () => parseJsonLines(proc.stdout()).map((l) => String(l.msg ?? '')),
    };
    proc.child.once('exit', () => {
      if (m.status === 'running') m.status = 'exited';
    });
    return m;
  }

  member(i: number): ClusterMember {
    const m = this.members[i];
    if (m === undefined) throw new Error(`no member ${i} (cluster has ${this.members.length})`);
    return m;
  }

  /** Members whose process still runs (not killed, stopped or exited on their own). */
  live(): ClusterMember[] {
    return this.members.filter((m) => m.status === 'running');
  }

  /** The member with this uuid (throws when none of ours has it). */
  byUuid(uuid: string): ClusterMember {
    const m = this.members.find((x) => x.uuid === uuid);
    if (m === undefined) throw new Error(`no member of this cluster has uuid ${uuid} (known: ${this.members.map((x) => `${x.index}=${x.uuid ?? '?'}`).join(', ')})`);
    return m;
  }

  // ------------------------------------------------------------ HTTP

  private agentFor(port: number): http.Agent {
    let a = this.agents.get(port);
    if (a === undefined) {
      const t = this.opts.tls;
      a =
        t === undefined
          ? new http.Agent({ keepAlive: true, maxSockets: 32 })
          : new https.Agent({
              keepAlive: true,
              maxSockets: 32,
              ca: readFileSync(t.ca),
              // The chain is checked; names are the TLS tests' own subject (a member may hold a certificate for a DNS name only).
              checkServerIdentity: () => undefined,
              ...(t.cert !== undefined && t.key !== undefined ? { cert: readFileSync(t.cert), key: readFileSync(t.key) } : {}),
            });
      this.agents.set(port, a);
    }
    return a;
  }

  /**
   * One request to member `i` (keep-alive). Rejects on a connection error or when no answer
   * came within `timeoutMs` (default 10 s); any HTTP status resolves.
   */
  http(i: number, method: string, path: string, body?: string, opts: { timeoutMs?: number; contentType?: string } = {}): Promise<HttpResponse> {
    return this.httpOnce(i, method, path, body, opts).catch((e: unknown) => {
      // A kept-alive connection the member closed as idle just as this request went out on it:
      // the member never read the request, so it is sent again on a new connection (node's advice).
      if (e instanceof StaleSocketError) return this.httpOnce(i, method, path, body, opts);
      throw e;
    });
  }

  private httpOnce(i: number, method: string, path: string, body: string | undefined, opts: { timeoutMs?: number; contentType?: string }): Promise<HttpResponse> {
    const port = this.member(i).port;
    const host = this.hostOf(i);
    const timeoutMs = opts.timeoutMs ?? 10_000;
    return new Promise<HttpResponse>((resolve, reject) => {
      const headers: Record<string, string> = {};
      if (body !== undefined) {
        headers['content-type'] = opts.contentType ?? 'text/plain';
        headers['content-length'] = String(Buffer.byteLength(body));
      } else if (method === 'POST') {
        headers['content-length'] = '0';
      }
      const req = (this.opts.tls === undefined ? http : https).request({ host, port, method, path, headers, agent: this.agentFor(port) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
      });
      const timer = setTimeout(() => req.destroy(new Error(`${method} ${path} on member ${i} (port ${port}): no answer within ${timeoutMs} ms`)), timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(req.reusedSocket && e.code === 'ECONNRESET' ? new StaleSocketError(e.message) : e);
      });
      req.end(body);
    });
  }

  /** GET `path` on member `i`, expecting 200 and JSON. */
  async json<T>(i: number, path: string): Promise<T> {
    const res = await this.http(i, 'GET', path);
    if (res.status !== 200) throw new Error(`GET ${path} on member ${i}: ${res.status} ${res.body}`);
    return JSON.parse(res.body) as T;
  }

  clusterInfo(i: number): Promise<ClusterInfo> {
    return this.json<ClusterInfo>(i, '/hazelcast/rest/cluster');
  }

  health(i: number): Promise<Health> {
    return this.json<Health>(i, '/hazelcast/health');
  }

  partitions(i: number): Promise<PartitionsInfo> {
    return this.json<PartitionsInfo>(i, '/grid/rest/partitions');
  }

  /** POST a management call (`/hazelcast/rest/management/cluster/<op>`) with `body` (default `<clusterName>&`). */
  management(i: number, op: string, body = `${this.clusterName}&`): Promise<HttpResponse> {
    return this.http(i, 'POST', `/hazelcast/rest/management/cluster/${op}`, body, { contentType: 'application/x-www-form-urlencoded' });
  }

  // ------------------------------------------------------------ lifecycle

  /**
   * Waits until member `i` answers /rest/cluster (and learns its uuid). Fails early when the
   * process exits, with its output.
   */
  async waitUp(i: number, timeoutMs = 30_000): Promise<void> {
    const m = this.member(i);
    await waitFor(
      `member ${i} (port ${m.port}) to answer GET /hazelcast/rest/cluster`,
      async () => {
        if (m.status !== 'running') {
          throw new Error(`member ${i} is ${m.status} (exit ${String(m.process.child.exitCode ?? m.process.child.signalCode)}); output:\n${tail(m.output())}`);
        }
        const info = await this.clusterInfo(i);
        const local = info.members.find((x) => x.localMember);
        if (local === undefined) return false;
        m.uuid = local.uuid;
        return true;
      },
      timeoutMs,
      50,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nmember ${i} output:\n${tail(m.output())}`);
    });
  }

  /**
   * Polls /rest/cluster on every live member until all list the same `n` members (same uuids,
   * same order), each marks itself (only) as local, and `onMembers` (if given) accepts the
   * list. Returns the agreed list, oldest first. `among` (member indexes) asks only those
   * members instead of every live one (e.g. the others while one is paused).
   */
  async waitForMembers(
    n: number,
    onMembers?: (members: readonly MemberView[]) => boolean,
    timeoutMs = 30_000,
    among?: readonly number[],
  ): Promise<MemberView[]> {
    let lastSeen = '';
    try {
      return await waitFor(
        `every ${among ? `asked (${among.map((i) => `m${i}`).join(', ')})` : 'live'} member to list the same ${n} members`,
        async () => {
          const live = among ? among.map((i) => this.member(i)) : this.live();
          const views = await Promise.all(
            live.map(async (m) => ({ m, info: await this.clusterInfo(m.index).catch((e: Error) => e) })),
          );
          lastSeen = views
            .map(({ m, info }) =>
              info instanceof Error
                ? `member ${m.index}: ${info.message}`
                : `member ${m.index}: [${info.members.map((x) => `${this.nameOf(x.uuid)}${x.localMember ? '*' : ''}`).join(', ')}]`,
            )
            .join('; ');
          let agreed: MemberView[] | undefined;
          for (const { m, info } of views) {
            if (info instanceof Error) return false;
            const local = info.members.filter((x) => x.localMember);
            if (local.length !== 1) return false;
            m.uuid ??= local[0]?.uuid;
            if (local[0]?.uuid !== m.uuid || local[0]?.address !== m.address) return false;
            if (info.members.length !== n) return false;
            const list = info.members.map((x) => ({ ...x, localMember: false }));
            if (agreed === undefined) agreed = list;
            else if (list.map((x) => x.uuid).join() !== agreed.map((x) => x.uuid).join()) return false;
          }
          if (agreed === undefined) return false;
          if (onMembers !== undefined && !onMembers(agreed)) return false;
          return agreed;
        },
        timeoutMs,
        100,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}; last seen: ${lastSeen}`);
    }
  }

  /**
   * Polls /health on every live member until each says clusterSafe, migrationQueueSize 0,
   * nodeState ACTIVE (so not while the cluster is PASSIVE) and clusterSize = `expectSize`,
   * by default the number of live members (so a kill not yet noticed does not pass for safe).
   * `among` (member indexes) asks only those members instead of every live one.
   */
  async waitSafe(timeoutMs = 30_000, expectSize = this.live().length, among?: readonly number[]): Promise<void> {
    let lastSeen = '';
    try {
      await waitFor(
        `every ${among ? `asked (${among.map((i) => `m${i}`).join(', ')})` : 'live'} member to report a safe cluster of ${expectSize}`,
        async () => {
          const live = among ? among.map((i) => this.member(i)) : this.live();
          const views = await Promise.all(live.map(async (m) => ({ m, h: await this.health(m.index).catch((e: Error) => e) })));
          lastSeen = views.map(({ m, h }) => `member ${m.index}: ${h instanceof Error ? h.message : JSON.stringify(h)}`).join('; ');
          return views.every(
            ({ h }) => !(h instanceof Error) && h.clusterSafe && h.migrationQueueSize === 0 && h.clusterSize === expectSize && h.nodeState === 'ACTIVE',
          );
        },
        timeoutMs,
        100,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}; last seen: ${lastSeen}`);
    }
  }

  /** `m<index>` for a uuid we know, else the uuid itself (for messages). */
  nameOf(uuid: string | null | undefined): string {
    const m = this.members.find((x) => x.uuid !== undefined && x.uuid === uuid);
    return m ? `m${m.index}` : String(uuid);
  }

  /**
   * Starts one more member on the next reserved port (listing every port). `wait: 'up'`
   * (default) waits until it answers REST; `'none'` returns at once (for members expected to
   * be refused). Convergence is the caller's to wait for (`waitForMembers`).
   */
  async addMember(opts: { lite?: boolean; config?: ConfigFragment; wait?: 'up' | 'none'; timeoutMs?: number } = {}): Promise<ClusterMember> {
    const m = this.spawnMember(opts.lite ?? false, opts.config);
    if ((opts.wait ?? 'up') === 'up') await this.waitUp(m.index, opts.timeoutMs);
    return m;
  }

  /** SIGKILL member `i` and wait until the process is gone. */
  async kill(i: number): Promise<void> {
    const m = this.member(i);
    if (m.status === 'running') m.status = 'killed';
    const c = m.process.child;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGKILL');
    await within(gone, 5_000, `member ${i} (pid ${c.pid ?? '?'}) to die after SIGKILL`);
  }

  /**
   * Starts member `i` again on its own port with its own config, after it was killed, stopped
   * or exited (a new process, so a new uuid: it joins as a new member). The `ClusterMember`
   * at index `i` is replaced; the output of the earlier process is kept in the cluster's
   * directory as `member-<i>.run<k>.log`. `wait: 'up'` (default) waits until it answers REST.
   */
  async restart(i: number, opts: { wait?: 'up' | 'none'; timeoutMs?: number } = {}): Promise<ClusterMember> {
    const old = this.member(i);
    const c = old.process.child;
    if (c.exitCode === null && c.signalCode === null) throw new Error(`member ${i} still runs (pid ${c.pid ?? '?'}): kill or stop it before restarting it`);
    const run = this.restarts.get(i) ?? 0;
    this.restarts.set(i, run + 1);
    writeFileSync(join(this.dir, `member-${i}.run${run}.log`), old.output());
    const m = this.launch(i, old.port, old.lite, old.configPath);
    this.members[i] = m;
    if ((opts.wait ?? 'up') === 'up') await this.waitUp(i, opts.timeoutMs);
    return m;
  }

  /** SIGSTOP member `i` (a frozen VM, a long GC pause): its process stays, silent. */
  pause(i: number): void {
    const m = this.member(i);
    if (m.status !== 'running') throw new Error(`member ${i} is ${m.status}: cannot pause it`);
    m.process.child.kill('SIGSTOP');
    this.paused.add(i);
  }

  /** SIGCONT member `i` after `pause`. */
  resume(i: number): void {
    this.member(i).process.child.kill('SIGCONT');
    this.paused.delete(i);
  }

  /** The index of the member that member `asking` names as master (first of its list). */
  async masterIndex(asking: number): Promise<number> {
    const first = (await this.clusterInfo(asking)).members[0];
    if (first === undefined) throw new Error(`member ${asking} lists no members`);
    return this.byUuid(first.uuid).index;
  }

  /** SIGTERM member `i` (graceful shutdown) and wait for it to exit; returns how it exited. */
  async stop(i: number, timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const m = this.member(i);
    if (m.status === 'running') m.status = 'stopped';
    m.process.child.kill('SIGTERM');
    return this.waitExit(i, timeoutMs);
  }

  /** Waits for member `i`'s process to exit (e.g. after a REST shutdown); its output on failure. */
  async waitExit(i: number, timeoutMs = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const m = this.member(i);
    try {
      const r = await m.process.exited(timeoutMs);
      if (m.status === 'running') m.status = 'exited';
      return r;
    } catch (e) {
      throw new Error(`${(e as Error).message.slice(0, 300)}…\nmember ${i} output:\n${tail(m.output())}`);
    }
  }

  /** Synchronous last resort (process exit): SIGKILL whatever still runs. */
  killAllNow(): void {
    for (const m of this.members) {
      const c = m.process.child;
      if (c.exitCode === null && c.signalCode === null) {
        try {
          c.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }

  /** Kills every process of this cluster and waits for them; removes the temp dir unless `keepFiles`. */
  async destroy(opts: { keepFiles?: boolean; report?: boolean } = {}): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    liveClusters.delete(this);
    fileClusters.delete(this);
    const loads = [...this.loads].map((l) => l.stop());
    for (const a of this.agents.values()) a.destroy();
    const statuses = this.members.map((m) => m.status);
    await Promise.all(
      this.members.map(async (m) => {
        const c = m.process.child;
        if (c.exitCode !== null || c.signalCode !== null) return;
        const gone = new Promise<void>((r) => c.once('exit', () => r()));
        c.kill('SIGKILL');
        await within(gone, 5_000, `member ${m.index} (pid ${c.pid ?? '?'}) to exit after SIGKILL`);
      }),
    );
    await within(Promise.all(loads), 15_000, 'the write loads to stop');
    if (opts.report) {
      for (const m of this.members) {
        const file = join(this.dir, `member-${m.index}.log`);
        writeFileSync(file, m.output());
        const c = m.process.child;
        const status = statuses[m.index] ?? m.status;
        const how = status === 'running' ? 'killed by the cleanup' : `${status}, exit ${String(c.exitCode ?? c.signalCode)}`;
        console.error(`--- member ${m.index} (port ${m.port}, uuid ${m.uuid ?? '?'}, ${how}); full output in ${file}:\n${tail(m.output(), 25)}`);
      }
    }
    if (!opts.keepFiles) rmSync(this.dir, { recursive: true, force: true });
  }
}

function tail(text: string, lines = 15): string {
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}

/**
 * Starts a cluster of `size` real member processes and (by default) waits until they all list
 * each other and the cluster is safe. Every process is killed after the test.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const c = await Cluster.create(opts);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  await Promise.all(c.members.map((m) => c.waitUp(m.index, timeoutMs)));
  if ((opts.wait ?? 'safe') === 'safe') {
    await c.waitForMembers(opts.size, undefined, timeoutMs);
    await c.waitSafe(timeoutMs);
  }
  return c;
}

// The write load and the checks on what it wrote live in write-load.ts; re-exported for the
// tests that import them from here.
export { findMissing, holdsFor, startWriteLoad, successRatio, type WriteLoad, type WriteRecord } from './write-load.js';
