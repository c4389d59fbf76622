// The CP differential against Hazelcast 5.4.0 (cp-diff-suite.ts), bounded for `npm test`: the
// reads, hz-cluster-cp-admin and the refusals on the formed clusters. The changes after them
// (reset, kill -9 and removal) run in `npm run test:reference-long` (cp-diff.long.ts).

import { cpDiff } from './cp-diff-suite.js';

cpDiff({ changes: false });
