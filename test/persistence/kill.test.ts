// kill -9 of every member at once under write load (fsync false: the OS keeps what was written
// before a process dies, so nothing acknowledged may be missing), then start them all again:
// every write answered 200 before the kill is back with its latest acknowledged value. Each
// writer owns its keys and writes them in turn (one request in flight per writer), so a key's
// latest acknowledged value is well defined; a write with no answer (in flight at the kill) may
// or may not have landed.

import { describe, expect, it } from 'vitest';
import { killAllAtOnce, launchMembers, persistentCluster, requestBytes, restartAll } from '../support/persistence.js';
import { sleep } from '../support/wait.js';

const ALL = [0, 1, 2];
const MAP = 'persisted-load';
/** Keys per writer: after that many writes a writer overwrites its keys. */
const KEYS_PER_WRITER = 150;

interface KeyHistory {
  /** Value of the latest write answered 200. */
  acked: string | undefined;
  /** Values written after it with no 200 (no answer, or an error): any of them may have landed. */
  maybe: string[];
}

describe('persistence: kill -9 of every member under write load', () => {
  it('brings back every acknowledged write with its latest acknowledged value', async () => {
    const pc = await persistentCluster({ size: 3 });
    const c = pc.c;
    await launchMembers(pc, 3);
    const ports = c.members.map((m) => m.port);

    const history = new Map<string, KeyHistory>();
    let acks = 0;
    let overwrites = 0;
    let stopped = false;
    let inFlight = 0;
    const statuses: Record<string, number> = {};
    const writer = async (w: number): Promise<void> => {
      const port = ports[w % ports.length]!;
      for (let n = 0; !stopped; n++) {
        const key = `w${w}-${n % KEYS_PER_WRITER}`;
        const value = `w${w}-n${n}-${'x'.repeat(n % 50)}`;
        let h = history.get(key);
        if (h === undefined) history.set(key, (h = { acked: undefined, maybe: [] }));
        let status = 'no answer';
        inFlight++;
        try {
          status = String((await requestBytes(port, 'POST', `/hazelcast/rest/maps/${MAP}/${key}`, Buffer.from(value), 'text/plain', 5_000)).status);
        } catch {
          // killed under us
        } finally {
          inFlight--;
        }
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === '200') {
          if (h.acked !== undefined) overwrites++;
          h.acked = value;
          h.maybe = [];
          acks++;
        } else {
          h.maybe.push(value);
          if (status === 'no answer') await sleep(20);
        }
      }
    };
    const writers = Array.from({ length: 9 }, (_, w) => writer(w));
    const deadline = Date.now() + 20_000;
    while (acks < 3_000 && Date.now() < deadline) await sleep(20);
    expect(overwrites, `overwrites among ${acks} acknowledged writes`).toBeGreaterThan(300);

    const inFlightAtKill = inFlight;
    await killAllAtOnce(pc, ALL);
    expect(inFlightAtKill, 'writes in flight when the members were killed').toBeGreaterThan(0);
    // Let the writers see the kill, then stop them: whatever they got from now on is no answer.
    await sleep(200); // a duration: the writers keep going against the dead members for a while (nothing to poll for)
    stopped = true;
    await Promise.all(writers);
    expect(statuses['200']).toBe(acks);

    await restartAll(pc, ALL);
    await Promise.all(ALL.map((i) => c.waitUp(i)));
    await c.waitForMembers(3);
    await c.waitSafe();

    const problems: string[] = [];
    let checked = 0;
    const keys = [...history];
    let at = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (at < keys.length) {
          const [key, h] = keys[at++]!;
          const res = await requestBytes(ports[at % 3]!, 'GET', `/hazelcast/rest/maps/${MAP}/${key}`);
          checked++;
          const got = res.status === 200 ? res.body.toString('utf8') : res.status === 204 ? undefined : `status ${res.status}`;
          const allowed = [h.acked, ...h.maybe];
          if (!allowed.includes(got)) problems.push(`${key}: got ${String(got)}, expected ${String(h.acked)}${h.maybe.length > 0 ? ` or one of ${h.maybe.join(', ')}` : ''}`);
        }
      }),
    );
    expect(checked).toBe(history.size);
    expect(problems.slice(0, 20), `${problems.length} keys of ${history.size} wrong (writes: ${JSON.stringify(statuses)})`).toEqual([]);
  }, 60_000);
});
