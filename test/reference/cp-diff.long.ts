// The whole CP differential against Hazelcast 5.4.0 (cp-diff-suite.ts) for `npm run
// test:reference-long`: what cp-diff.test.ts runs in `npm test`, then reset on a full
// cluster, kill -9 and removal of a member, removal of a present member, and a reset short of
// members. Not a *.test.ts, so `npm test` never picks it up.

import { cpDiff } from './cp-diff-suite.js';

cpDiff({ changes: true });
