import { describe, expect, it } from 'vitest';
import { applyMessageFault, parseMessageFaults } from '../../../src/core/test-hooks.js';
import { Msg } from '../../../src/protocol/messages.js';

describe('grid.debug.ignore-messages (simulated message loss, tests only)', () => {
  it('parses names, counts and refuse; reports unknown names and parts', () => {
    const { rules, problems } = parseMessageFaults(' StateCommit:1, StateRollback ,StatePrepare:2:refuse,Nope,Backup:x', Msg);
    expect(rules.map((r) => [r.type, r.remaining, r.refuse])).toEqual([
      [Msg.StateCommit, 1, false],
      [Msg.StateRollback, Infinity, false],
      [Msg.StatePrepare, 2, true],
      [Msg.Backup, Infinity, false],
    ]);
    expect(problems).toEqual(['unknown member message Nope', 'Backup:x: x is neither a count nor "refuse"']);
    expect(parseMessageFaults('', Msg).rules).toEqual([]);
  });

  it('applies each rule as many times as its count, then lets messages through', () => {
    const { rules } = parseMessageFaults('StateCommit:2,StatePrepare:1:refuse', Msg);
    expect(applyMessageFault(rules, Msg.Heartbeat)).toBeUndefined();
    expect(applyMessageFault(rules, Msg.StateCommit)).toBe('drop');
    expect(applyMessageFault(rules, Msg.StateCommit)).toBe('drop');
    expect(applyMessageFault(rules, Msg.StateCommit)).toBeUndefined();
    expect(applyMessageFault(rules, Msg.StatePrepare)).toBe('refuse');
    expect(applyMessageFault(rules, Msg.StatePrepare)).toBeUndefined();
  });
});
