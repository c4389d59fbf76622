// Byte vectors shared by the client protocol's unit tests.

/** What hazelcast-client 5.7.0 sent first (research note §1.8), after its `CP2` header. */
export const CAPTURED_AUTH = Buffer.from(
  '2800000000c1000100000100000000000000ffffffff0083217bc9d608f1d7c8d748fac54ff3ce01' +
    '0900000000006465760600000000040600000000040900000000004e4a530b0000000000352e372e30' +
    '110000000000687a2e636c69656e745f30060000000010060000000028',
  'hex',
);

