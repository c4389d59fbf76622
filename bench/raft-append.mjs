// A Raft follower's append path, in process (no network): the CPU time of RaftNode.receive for
// the requests a follower gets most — appends carrying new entries, heartbeats, and repeated
// appends of entries it already holds — so a change to raft.ts's onAppend can be compared with
// the version before it. Not part of `npm run bench`; run it after `npm run build`:
//   node bench/raft-append.mjs [--raft dist/cp/raft.js] [--rounds 5] [--calls 200000]
// It prints ns per receive (median of the rounds) for each kind of request.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const raftPath = path.resolve(opt('raft', 'dist/cp/raft.js'));
const rounds = Number(opt('rounds', '5'));
const calls = Number(opt('calls', '200000'));
const { RaftNode } = await import(pathToFileURL(raftPath).href);

const CONFIG = {
  leaderElectionTimeoutMs: 1000,
  leaderHeartbeatPeriodMs: 100,
  maxMissedLeaderHeartbeatCount: 5,
  appendRequestMaxEntryCount: 50,
  appendRequestBackoffTimeoutMs: 100,
  commitIndexAdvanceCountToSnapshot: 1000,
  uncommittedEntryCountToRejectNewAppends: 100,
};

/** A started follower `b` of leader `a` (term 1), with the outputs that matter acted on. */
function follower() {
  const raft = new RaftNode({ self: 'b', initialMembers: ['a', 'b', 'c'], config: CONFIG, random: () => 0.5 });
  raft.start(0);
  let applied = 0;
  const act = (outs) => {
    for (const o of outs) {
      if (o.type === 'apply') applied = o.entries[o.entries.length - 1].index;
      else if (o.type === 'snapshot-due') act(raft.takeSnapshot(applied, applied, 0));
    }
  };
  return { raft, act };
}

const entries = (from, n) => Array.from({ length: n }, (_, k) => ({ index: from + k, term: 1, kind: 'command', command: ['add', `k${from + k}`, 'x', '1'] }));

/** ns per receive of `calls` requests of one kind. */
function run(kind) {
  const { raft, act } = follower();
  const batch = 10;
  // Pre-built requests: the bench times receive, not building them.
  const reqs = [];
  let last = 0;
  for (let i = 0; i < calls; i++) {
    if (kind === 'new-entries') {
      reqs.push({ type: 'append', term: 1, prevLogIndex: last, prevLogTerm: last === 0 ? 0 : 1, entries: entries(last + 1, batch), leaderCommit: last, seq: i + 1 });
      last += batch;
    } else reqs.push(null);
  }
  if (kind !== 'new-entries') {
    // A log of 100 entries, all committed; then heartbeats, or the same 10 entries again.
    act(raft.receive('a', { type: 'append', term: 1, prevLogIndex: 0, prevLogTerm: 0, entries: entries(1, 100), leaderCommit: 100, seq: 0 }, 0));
    const held = entries(91, batch);
    for (let i = 0; i < calls; i++) {
      reqs[i] =
        kind === 'heartbeat'
          ? { type: 'append', term: 1, prevLogIndex: 100, prevLogTerm: 1, entries: [], leaderCommit: 100, seq: i + 1 }
          : { type: 'append', term: 1, prevLogIndex: 90, prevLogTerm: 1, entries: held, leaderCommit: 100, seq: i + 1 };
    }
  }
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) act(raft.receive('a', reqs[i], i));
  return Number(process.hrtime.bigint() - t0) / calls;
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`raft: ${raftPath}, ${rounds} rounds of ${calls} receives`);
for (const kind of ['new-entries', 'heartbeat', 'held-entries']) {
  run(kind); // warm-up
  const ns = [];
  for (let r = 0; r < rounds; r++) ns.push(run(kind));
  console.log(`${kind.padEnd(13)} ${median(ns).toFixed(0).padStart(6)} ns/receive (rounds: ${ns.map((x) => x.toFixed(0)).join(', ')})`);
}
