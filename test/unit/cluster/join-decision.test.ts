import { describe, expect, it } from 'vitest';
import {
  ROUNDS_BEFORE_FORMING,
  compareAddresses,
  decideJoin,
  type DiscoverAnswer,
  type JoinDecision,
} from '../../../src/cluster/join-decision.js';
import { prng } from '../../support/prng.js';

const starting = (address: string): DiscoverAnswer => ({ address, joined: false, masterAddress: undefined });
const joinedTo = (address: string, masterAddress: string | undefined): DiscoverAnswer => ({ address, joined: true, masterAddress });

function decide(self: string, answers: DiscoverAnswer[], askedBy: string[], round: number): JoinDecision {
  return decideJoin({ self, answers, askedBy, round });
}


describe('compareAddresses', () => {
  it('orders ports of one host as numbers, not as text', () => {
    expect(compareAddresses('127.0.0.1:5702', '127.0.0.1:5710')).toBeLessThan(0);
    expect(compareAddresses('127.0.0.1:5710', '127.0.0.1:5702')).toBeGreaterThan(0);
    // As text "10000" < "5702"; as numbers it is the other way round.
    expect(compareAddresses('127.0.0.1:5702', '127.0.0.1:10000')).toBeLessThan(0);
    expect(compareAddresses('127.0.0.1:999', '127.0.0.1:5701')).toBeLessThan(0);
    expect(compareAddresses('127.0.0.1:65535', '127.0.0.1:1')).toBeGreaterThan(0);
  });

  it('orders by host first, whatever the ports', () => {
    expect(compareAddresses('127.0.0.1:5800', '127.0.0.2:5701')).toBeLessThan(0);
    expect(compareAddresses('127.0.0.2:5701', '127.0.0.1:5800')).toBeGreaterThan(0);
    expect(compareAddresses('10.0.0.1:9999', '10.0.0.2:1')).toBeLessThan(0);
    expect(compareAddresses('a-host:5702', 'b-host:5701')).toBeLessThan(0);
  });

  it('is 0 for the same address only', () => {
    expect(compareAddresses('127.0.0.1:5701', '127.0.0.1:5701')).toBe(0);
    expect(compareAddresses('[::1]:5701', '[::1]:5701')).toBe(0);
    expect(compareAddresses('127.0.0.1:5701', '127.0.0.1:5702')).not.toBe(0);
    expect(compareAddresses('127.0.0.1:5701', '127.0.0.2:5701')).not.toBe(0);
  });

  it('handles bracketed IPv6 addresses (the port is after the last colon)', () => {
    expect(compareAddresses('[::1]:5702', '[::1]:5710')).toBeLessThan(0);
    expect(compareAddresses('[::1]:10000', '[::1]:5702')).toBeGreaterThan(0);
    expect(compareAddresses('[fe80::1]:5701', '[fe80::2]:5701')).toBeLessThan(0);
  });

  it('is a total order: antisymmetric, transitive, so every member sorts the same list the same way', () => {
    const addresses = [
      '127.0.0.1:5701', '127.0.0.1:5702', '127.0.0.1:5710', '127.0.0.1:10000', '127.0.0.1:999',
      '127.0.0.2:5701', '127.0.0.10:5701', '10.0.0.1:5701', '9.0.0.1:5701', 'localhost:5701',
      '[::1]:5701', '[::1]:5702', 'host-b:1', 'host-a:65535',
    ];
    for (const a of addresses) {
      expect(compareAddresses(a, a)).toBe(0);
      for (const b of addresses) {
        expect(Math.sign(compareAddresses(a, b)) + Math.sign(compareAddresses(b, a)), `${a} vs ${b}`).toBe(0);
        if (a !== b) expect(compareAddresses(a, b), `${a} vs ${b}`).not.toBe(0);
        for (const c of addresses) {
          if (compareAddresses(a, b) < 0 && compareAddresses(b, c) < 0) expect(compareAddresses(a, c), `${a} < ${b} < ${c}`).toBeLessThan(0);
        }
      }
    }
    const random = prng(7);
    const sorted = [...addresses].sort(compareAddresses);
    for (let i = 0; i < 20; i++) {
      const shuffled = [...addresses].sort(() => random() - 0.5);
      expect(shuffled.sort(compareAddresses)).toEqual(sorted);
    }
  });
});

describe('decideJoin', () => {
  const A = '127.0.0.1:5701';
  const B = '127.0.0.1:5702';
  const C = '127.0.0.1:5703';
  const HIGH = '127.0.0.1:10000';

  it('pins the number of rounds before forming', () => {
    expect(ROUNDS_BEFORE_FORMING).toBe(2);
  });

  describe('someone has joined', () => {
    it("joins the master that a joined member follows", () => {
      expect(decide(B, [joinedTo(C, A)], [], 1)).toEqual({ action: 'join', masterAddress: A });
    });

    it('joins the joined member itself when it names no master', () => {
      expect(decide(B, [joinedTo(C, undefined)], [], 1)).toEqual({ action: 'join', masterAddress: C });
    });

    it('joins even when this member has the lowest address and has asked long enough', () => {
      for (const round of [1, 2, 3, 50]) {
        expect(decide(A, [joinedTo(HIGH, HIGH)], [], round)).toEqual({ action: 'join', masterAddress: HIGH });
        expect(decide(A, [starting(B), joinedTo(C, C)], [B], round)).toEqual({ action: 'join', masterAddress: C });
      }
    });

    it('a joined answer wins over starting ones wherever it is in the list', () => {
      expect(decide(C, [starting(A), starting(B), joinedTo(HIGH, B)], [A], 1)).toEqual({ action: 'join', masterAddress: B });
      expect(decide(C, [joinedTo(HIGH, B), starting(A)], [], 1)).toEqual({ action: 'join', masterAddress: B });
    });

    it('with several joined answers, follows the first one', () => {
      expect(decide(C, [starting(A), joinedTo(B, A), joinedTo(HIGH, HIGH)], [], 1)).toEqual({ action: 'join', masterAddress: A });
      expect(decide(C, [joinedTo(HIGH, undefined), joinedTo(B, A)], [], 1)).toEqual({ action: 'join', masterAddress: HIGH });
    });
  });

  describe('nobody has joined', () => {
    it('alone: asks once more, then forms from round ROUNDS_BEFORE_FORMING on', () => {
      expect(decide(A, [], [], 1)).toEqual({ action: 'wait', reason: 'asking the member list once more' });
      expect(decide(A, [], [], ROUNDS_BEFORE_FORMING)).toEqual({ action: 'form' });
      expect(decide(A, [], [], ROUNDS_BEFORE_FORMING + 1)).toEqual({ action: 'form' });
      expect(decide(A, [], [], 1000)).toEqual({ action: 'form' });
    });

    it('round 0 (nothing asked yet) never forms', () => {
      expect(decide(A, [], [], 0).action).toBe('wait');
    });

    it('the lowest of the starting members forms only after ROUNDS_BEFORE_FORMING rounds', () => {
      expect(decide(A, [starting(B), starting(C)], [], 1).action).toBe('wait');
      expect(decide(A, [starting(B), starting(C)], [], 2)).toEqual({ action: 'form' });
      expect(decide(A, [starting(B), starting(C)], [B, C], 5)).toEqual({ action: 'form' });
    });

    it('waits for a lower starting member that answered, naming it, whatever the round', () => {
      for (const round of [1, 2, 3, 100]) {
        const d = decide(B, [starting(A), starting(C)], [], round);
        expect(d).toEqual({ action: 'wait', reason: `waiting for ${A} (lower address) to form the cluster` });
      }
    });

    it('names the lowest of several lower members', () => {
      const d = decide(HIGH, [starting(C), starting(A), starting(B)], [], 3);
      expect(d).toEqual({ action: 'wait', reason: `waiting for ${A} (lower address) to form the cluster` });
    });

    it('counts members that asked it (askedBy) even when it could not reach them', () => {
      // B got no answer from A (A unreachable from B) but A asked B: B still must not form.
      expect(decide(B, [], [A], 5)).toEqual({ action: 'wait', reason: `waiting for ${A} (lower address) to form the cluster` });
      expect(decide(B, [starting(C)], [A], 5).action).toBe('wait');
      // Higher members that asked change nothing.
      expect(decide(A, [], [B, C, HIGH], 1).action).toBe('wait');
      expect(decide(A, [], [B, C, HIGH], 2)).toEqual({ action: 'form' });
    });

    it('ignores itself in the answers and in askedBy (e.g. listed under its own address)', () => {
      expect(decide(A, [starting(A)], [A], 2)).toEqual({ action: 'form' });
      expect(decide(B, [starting(B), starting(C)], [B], 2)).toEqual({ action: 'form' });
    });

    it('compares ports as numbers: 127.0.0.1:5710 waits for :5702, and :5702 forms', () => {
      const low = '127.0.0.1:5702';
      const high = '127.0.0.1:5710';
      expect(decide(high, [starting(low)], [], 5)).toEqual({ action: 'wait', reason: `waiting for ${low} (lower address) to form the cluster` });
      expect(decide(low, [starting(high)], [], 5)).toEqual({ action: 'form' });
      // 10000 is above 5702 as a number (below it as text).
      expect(decide(HIGH, [starting(B)], [], 5).action).toBe('wait');
      expect(decide(B, [starting(HIGH)], [], 5)).toEqual({ action: 'form' });
    });

    it('compares hosts before ports', () => {
      const lowHost = '127.0.0.1:5800';
      const highHost = '127.0.0.2:5701';
      expect(decide(highHost, [starting(lowHost)], [], 5).action).toBe('wait');
      expect(decide(lowHost, [starting(highHost)], [], 5)).toEqual({ action: 'form' });
    });

    it('of any set of starting members that all see each other, exactly one forms', () => {
      const all = [A, B, C, HIGH, '127.0.0.2:5701', '127.0.0.1:999'];
      for (let n = 1; n <= all.length; n++) {
        const group = all.slice(0, n);
        const forming = group.filter((self) => {
          const answers = group.filter((x) => x !== self).map(starting);
          return decide(self, answers, [], ROUNDS_BEFORE_FORMING).action === 'form';
        });
        expect(forming).toEqual([[...group].sort(compareAddresses)[0]]);
      }
    });
  });
});

// ------------------------------------------------------------------ simulation

/**
 * Members of one tcp-ip member list start at random rounds and ask each other every round,
 * with decideJoin as the rule. Time is in rounds ("ticks"). What a member sees in a round is
 * the state of the others at the start of that round. The model of the network matches what
 * the rule relies on: a member binds its port before it starts asking, so a member that has
 * started is reachable by the others at most one round later (a request in the very round it
 * started may miss it). Per direction the delay is 0 or 1 round, and an ask is noted by the
 * asked member (askedBy) in the same round or the next. Members may also skip rounds (a slow
 * round). A member that forms is joined with itself as master; a member that decides to join
 * an address ends up following that member's master (the Join is redirected to the master).
 */
interface SimMember {
  readonly address: string;
  readonly start: number;
  round: number;
  master: string | undefined;
  formed: boolean;
  /** address -> tick its ask became known to this member. */
  readonly askedAt: Map<string, number>;
}

const ASKED_BY_MEMORY_TICKS = 15; // 3000 ms of memory at 200 ms a round

function simulate(seed: number, n: number): { members: SimMember[]; ticks: number; log: string[] } {
  const random = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  // Distinct addresses over a few hosts and ports (numeric order differs from text order).
  const hosts = ['127.0.0.1', '127.0.0.2', '10.0.0.1'];
  const ports = [5701, 5702, 5703, 5710, 999, 10000, 6000];
  const addresses = new Set<string>();
  while (addresses.size < n) addresses.add(`${pick(hosts)}:${pick(ports)}`);
  const members: SimMember[] = [...addresses].map((address) => ({
    address,
    start: Math.floor(random() * 6),
    round: 0,
    master: undefined,
    formed: false,
    askedAt: new Map(),
  }));
  const byAddress = new Map(members.map((m) => [m.address, m]));
  // delay[i][j]: rounds after both have started before i's requests reach j (0 or 1).
  const delay = members.map(() => members.map(() => (random() < 0.5 ? 0 : 1)));
  const noteLag = members.map(() => members.map(() => (random() < 0.5 ? 0 : 1)));
  const log: string[] = [];
  let tick = 0;
  for (; tick < 200; tick++) {
    if (members.every((m) => m.master !== undefined)) break;
    // Snapshot: what the others look like at the start of this round.
    const snapshot = new Map(members.map((m) => [m.address, { joined: m.master !== undefined, master: m.master }]));
    const decisions: [SimMember, JoinDecision][] = [];
    members.forEach((m, i) => {
      if (tick < m.start || m.master !== undefined) return;
      if (tick > m.start && random() < 0.15) return; // a slow round: this member asks nothing this tick
      m.round++;
      const answers: DiscoverAnswer[] = [];
      members.forEach((peer, j) => {
        if (j === i || tick < peer.start) return;
        if (tick < Math.max(m.start, peer.start) + delay[i]![j]!) return; // not reachable yet
        const s = snapshot.get(peer.address)!;
        // A joined member sometimes leaves its master out: the joiner then asks the member itself.
        answers.push({ address: peer.address, joined: s.joined, masterAddress: s.joined && random() < 0.7 ? s.master : undefined });
        if (!s.joined) peer.askedAt.set(m.address, tick + noteLag[i]![j]!);
      });
      const askedBy = [...m.askedAt].filter(([, at]) => at <= tick && tick - at <= ASKED_BY_MEMORY_TICKS).map(([a]) => a);
      decisions.push([m, decideJoin({ self: m.address, answers, askedBy, round: m.round })]);
    });
    for (const [m, d] of decisions) {
      if (d.action === 'form') {
        m.master = m.address;
        m.formed = true;
        log.push(`tick ${tick}: ${m.address} forms (round ${m.round})`);
      } else if (d.action === 'join') {
        const target = byAddress.get(d.masterAddress);
        expect(target, `seed ${seed}: join target ${d.masterAddress} exists`).toBeDefined();
        // The target was joined in the snapshot, so it follows a master (redirects lead there).
        const master = snapshot.get(d.masterAddress)!.master ?? target!.master;
        expect(master, `seed ${seed}: ${m.address} joins ${d.masterAddress}, which has a master`).toBeDefined();
        m.master = master;
        log.push(`tick ${tick}: ${m.address} joins ${d.masterAddress} (master ${master})`);
      }
    }
  }
  return { members, ticks: tick, log };
}

describe('decideJoin in a simulated start of 2..6 members', () => {
  it('always ends with exactly one cluster, over many seeds', () => {
    let runs = 0;
    for (let n = 2; n <= 6; n++) {
      for (let seed = 1; seed <= 400; seed++) {
        const { members, ticks, log } = simulate(seed * 31 + n, n);
        const where = `n=${n} seed=${seed * 31 + n}\n${log.join('\n')}`;
        expect(members.every((m) => m.master !== undefined), `everyone joined within ${ticks} ticks: ${where}`).toBe(true);
        const formed = members.filter((m) => m.formed);
        expect(formed.length, `exactly one member formed a cluster: ${where}`).toBe(1);
        const master = formed[0]!.address;
        for (const m of members) expect(m.master, `${m.address} follows the one master: ${where}`).toBe(master);
        // Nobody waits forever: everyone is in within a few rounds of the last start.
        expect(ticks).toBeLessThanOrEqual(Math.max(...members.map((m) => m.start)) + 12);
        runs++;
      }
    }
    expect(runs).toBe(2000);
  });

  it('when everyone starts in the same round and sees everyone at once, the lowest address forms', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const random = prng(seed);
      const n = 2 + Math.floor(random() * 5);
      const addresses = new Set<string>();
      while (addresses.size < n) addresses.add(`127.0.0.1:${5000 + Math.floor(random() * 6000)}`);
      const list = [...addresses];
      const lowest = [...list].sort(compareAddresses)[0]!;
      // Round 1: nobody forms; round 2: only the lowest.
      for (const round of [1, 2]) {
        const forming = list.filter((self) => decide(self, list.filter((a) => a !== self).map(starting), [], round).action === 'form');
        expect(forming).toEqual(round < ROUNDS_BEFORE_FORMING ? [] : [lowest]);
      }
    }
  });
});
