// Events phase (`--only events`): what map change events cost REST map GET and POST. One member;
// rounds alternate without and with an entry listener on the benchmarked map (a unisocket
// hazelcast-client in its own process, values included, counting what it gets), so a drift of
// the machine hits both. Without a listener a map's stores carry no watcher (the hot path is
// unchanged); with one, every POST makes an event, encoded and written to the client. Goal: no
// measurable cost to GET, and POST's cost with a listener reported. See README.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PRELOAD_KEYS, WORKLOADS, fmtInt, fmtUs, freePort, log, measure, pipelinedLoad, startChild, stopChild, summarize, tempDirs, waitReady } from './lib.mjs';

export const EVENTS_PHASES = ['events'];

function configFor(port) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grid-bench-events-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'grid.yaml');
  writeFileSync(
    file,
    [
      'hazelcast:',
      '  cluster-name: bench-events',
      '  network:',
      `    port: { port: ${port}, auto-increment: false }`,
      '    join: { tcp-ip: { enabled: false } }',
      '    rest-api:',
      '      enabled: true',
      '      endpoint-groups:',
      '        DATA: { enabled: true }',
      '        HEALTH_CHECK: { enabled: true }',
      '        CLUSTER_READ: { enabled: true }',
      '',
    ].join('\n'),
  );
  return file;
}

// The listener runs in its own process: in the bench process it would take event-loop time from
// the load generator. It prints `ready` once registered and its event count when stopped.
const LISTENER = `
const { Client } = require(${JSON.stringify(path.resolve('node_modules/hazelcast-client'))});
const [port] = process.argv.slice(1);
let events = 0;
let client;
process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ events }) + '\\n'); process.exit(0); });
Client.newHazelcastClient({ clusterName: 'bench-events', network: { clusterMembers: ['127.0.0.1:' + port], smartRouting: false }, properties: { 'hazelcast.logging.level': 'OFF' } })
  .then(async (c) => {
    client = c;
    const m = await c.getMap('bench');
    const on = () => { events++; };
    await m.addEntryListener({ added: on, updated: on, removed: on }, undefined, true);
    process.stdout.write('ready\\n');
  })
  .catch((e) => { process.stderr.write(String(e) + '\\n'); process.exit(1); });
`;

function startListener(port) {
  const child = spawn(process.execPath, ['-e', LISTENER, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('ready')) {
        clearInterval(t);
        resolve();
      }
    }, 20);
    exited.then(() => {
      clearInterval(t);
      reject(new Error('the listener process exited before it was ready'));
    });
  });
  return {
    ready,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      return line === undefined ? 0 : JSON.parse(line).events;
    },
  };
}

export async function runEvents(opts, report) {
  if (!opts.only.includes('events')) return;
  if (opts.target !== 'grid') {
    log('events: skipped (needs --target grid)');
    return;
  }
  log(`events: grid ${opts.gridBin}; map GET and POST without / with an entry listener, ${opts.rounds} round(s)`);
  const port = await freePort();
  const child = startChild('events member', [...opts.nodeArgs, opts.gridBin, 'start', '--config', configFor(port)], 'events.log');
  try {
    await waitReady(child, port);
    const pre = await pipelinedLoad({ port, map: 'bench', count: PRELOAD_KEYS, keyOf: (i) => `key-${i}` });
    if (pre.ok !== PRELOAD_KEYS) throw new Error(`events: preload answered 200 for only ${pre.ok}/${PRELOAD_KEYS}`);
    const server = { child, port };
    const rounds = [];
    let delivered = 0;
    for (let i = 1; i <= opts.rounds; i++) {
      const tag = opts.rounds > 1 ? ` ${i}/${opts.rounds}` : '';
      const r = { round: i };
      for (const key of ['get', 'post']) r[`${key}Off`] = await measure(`${key} off${tag}`, server, opts.connections, opts.duration, () => WORKLOADS[key].requests(opts));
      const listener = startListener(port);
      await listener.ready;
      for (const key of ['get', 'post']) r[`${key}On`] = await measure(`${key} on${tag}`, server, opts.connections, opts.duration, () => WORKLOADS[key].requests(opts));
      r.events = await listener.stop();
      delivered += r.events;
      rounds.push(r);
    }
    const s = {};
    for (const k of ['getOff', 'getOn', 'postOff', 'postOn']) s[k] = summarize(rounds.map((r) => r[k]));
    report.events = {
      ...s,
      getRatio: s.getOn.reqPerSec / s.getOff.reqPerSec,
      postRatio: s.postOn.reqPerSec / s.postOff.reqPerSec,
      getCpu: s.getOn.cpuUsPerReq / s.getOff.cpuUsPerReq,
      postCpu: s.postOn.cpuUsPerReq / s.postOff.cpuUsPerReq,
      delivered,
      valid: Object.values(s).every((x) => x.bad === 0),
      rounds: rounds.map((r) => ({ round: r.round, events: r.events })),
    };
    const e = report.events;
    log(`  => GET with/without listener ${e.getRatio.toFixed(3)} (µs/req ${fmtUs(s.getOff.cpuUsPerReq)} / ${fmtUs(s.getOn.cpuUsPerReq)}); POST ${e.postRatio.toFixed(3)} (µs/req ${fmtUs(s.postOff.cpuUsPerReq)} / ${fmtUs(s.postOn.cpuUsPerReq)}); ${fmtInt(delivered)} events delivered`);
  } finally {
    await stopChild(child);
  }
}

export function renderEventsReport(report) {
  const e = report.events;
  if (!e) return '';
  const row = (name, off, on, ratio, cpu) =>
    `${name.padEnd(9)} ${fmtInt(off.reqPerSec).padStart(9)}  ${fmtInt(on.reqPerSec).padStart(8)}  ${ratio.toFixed(3).padStart(6)}  ${fmtUs(off.cpuUsPerReq)} / ${fmtUs(on.cpuUsPerReq)}  ${cpu.toFixed(3)}`;
  return [
    '',
    `events: map GET and POST without / with one entry listener (unisocket hazelcast-client, values included), ${e.rounds.length} round(s) alternating`,
    `          off req/s  on req/s  on/off  µs/req off / on  cpu on/off`,
    row('map GET', e.getOff, e.getOn, e.getRatio, e.getCpu),
    row('map POST', e.postOff, e.postOn, e.postRatio, e.postCpu),
    `          ${fmtInt(e.delivered)} events delivered to the listener` + (e.valid ? '' : '  WARNING: not a valid run (errors)'),
  ].join('\n');
}

export function eventsProblems(report) {
  const e = report.events;
  if (!e) return [];
  return e.valid ? [] : ['events: errors'];
}
