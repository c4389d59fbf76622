// noMajority: whether a CP group can have a leader, judged from the member list.

import { describe, expect, it } from 'vitest';
import { noMajority } from '../../../src/cp/cp-service.js';

const addresses = new Map([
  ['a', '10.0.0.1:5701'],
  ['b', '10.0.0.2:5701'],
  ['c', '10.0.0.3:5701'],
  ['d', '10.0.0.4:5701'],
  ['e', '10.0.0.5:5701'],
]);
const list = (...ids: string[]): { address: string }[] => ids.map((id) => ({ address: addresses.get(id)! }));

describe('noMajority', () => {
  it('3 members: 2 present is a majority, 1 is not', () => {
    expect(noMajority(['a', 'b', 'c'], addresses, list('a', 'b'))).toBeUndefined();
    expect(noMajority(['a', 'b', 'c'], addresses, list('a'))).toEqual({ alive: 1, need: 2 });
    expect(noMajority(['a', 'b', 'c'], addresses, [])).toEqual({ alive: 0, need: 2 });
  });
  it('5 members need 3; members outside the group do not count', () => {
    expect(noMajority(['a', 'b', 'c', 'd', 'e'], addresses, list('a', 'b', 'c'))).toBeUndefined();
    expect(noMajority(['a', 'b', 'c', 'd', 'e'], addresses, list('a', 'b'))).toEqual({ alive: 2, need: 3 });
    expect(noMajority(['a', 'b', 'c'], addresses, list('a', 'd', 'e'))).toEqual({ alive: 1, need: 2 });
  });
  it('an even group needs more than half', () => {
    expect(noMajority(['a', 'b', 'c', 'd'], addresses, list('a', 'b'))).toEqual({ alive: 2, need: 3 });
  });
  it('a member whose address is unknown: no verdict (only a call can tell)', () => {
    expect(noMajority(['a', 'x', 'y'], addresses, list('a'))).toBeUndefined();
  });
});
