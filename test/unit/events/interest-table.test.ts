import { describe, expect, it } from 'vitest';
import { InterestTable } from '../../../src/events/interest-table.js';

const A = 'member-a';
const B = 'member-b';

describe('InterestTable', () => {
  it('a later announcement replaces the earlier one; an older or repeated one changes nothing', () => {
    const t = new InterestTable();
    expect(t.apply(A, 10, ['m', 'n'])).toBe(true);
    expect([...t.membersFor('m')]).toEqual([A]);
    expect(t.apply(A, 10, ['x'])).toBe(false); // repeated version
    expect(t.apply(A, 9, [])).toBe(false); // late
    expect([...t.maps()].sort()).toEqual(['m', 'n']);
    expect(t.apply(A, 11, ['n'])).toBe(true);
    expect([...t.membersFor('m')]).toEqual([]);
    expect(t.apply(A, 12, ['n'])).toBe(false); // newer, same set
    expect(t.apply(B, 1, ['n'])).toBe(true);
    expect([...t.membersFor('n')].sort()).toEqual([A, B]);
  });

  it('a removed member\'s interest goes; an empty announcement from a new member is no change', () => {
    const t = new InterestTable();
    expect(t.apply(A, 1, [])).toBe(false);
    t.apply(B, 1, ['m']);
    expect(t.remove(B)).toBe(true);
    expect(t.remove(B)).toBe(false);
    expect(t.remove(A)).toBe(false);
    expect([...t.maps()]).toEqual([]);
    expect(t.membersFor('m').size).toBe(0);
  });
});
