// The cost of decoding (and encoding) member-protocol payloads: the control-plane payloads that
// record-tuple.ts declares by their fields (Auth, StateCommit, Migrate, ReplicaSyncData,
// PollCancel), each decoded from its tuple and encoded again, many times, in rounds; prints ns per
// decode and per encode for each, median of the rounds. Give a second build's dist/ to compare
// (a build of the commit before a change: `git archive <commit> src tsconfig*.json package.json |
// tar -x -C /tmp/base`, link node_modules, `npx tsc -p tsconfig.build.json`); on a loaded
// machine compare the medians, and run it more than once.
//
//   node bench/payload-decode.mjs [dist dir ...]

import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dists = process.argv.length > 2 ? process.argv.slice(2) : [new URL('../dist', import.meta.url).pathname];
const ROUNDS = 7;
const N = 200_000;

const payloads = (P) => [
  ['Auth', P.encodeAuth, P.decodeAuth, { clusterName: 'dev', uuid: 'u-1', address: '10.0.0.1:5701', username: undefined, password: undefined, version: '5.3.0' }],
  ['StateCommit', P.encodeStateCommit, P.decodeStateCommit, { txId: 'tx-1', state: 'ACTIVE', membersVersion: 7, stateVersion: 3 }],
  ['Migrate', P.encodeMigrate, P.decodeMigrate, { partitionId: 17, replicas: ['a', 'b', 'c'], previousReplicas: ['a', 'b'] }],
  ['ReplicaSyncData', P.encodeReplicaSyncData, P.decodeReplicaSyncData, { partitionId: 3, replicaIndex: 1, data: { map: null }, versions: [1, 2, 3], tableVersion: 9 }],
  ['PollCancel', P.encodePollCancel, P.decodePollCancel, { callerUuid: 'u-2', invocationId: 42 }],
];

function nsPer(fn, arg) {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) if (fn(arg) !== undefined) sink++;
  const ns = Number(process.hrtime.bigint() - t0) / N;
  if (sink !== N) throw new Error('a call returned undefined');
  return ns;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const dist of dists) {
  const P = await import(pathToFileURL(path.join(path.resolve(dist), 'protocol', 'payloads.js')).href);
  console.log(`${dist}`);
  for (const [name, encode, decode, payload] of payloads(P)) {
    const tuple = encode(payload);
    const dec = [];
    const enc = [];
    for (let r = 0; r < ROUNDS; r++) {
      dec.push(nsPer(decode, tuple));
      enc.push(nsPer(encode, payload));
    }
    console.log(`  ${name.padEnd(16)} decode ${median(dec).toFixed(1).padStart(6)} ns   encode ${median(enc).toFixed(1).padStart(6)} ns`);
  }
}
