// Deadline failure detector: a member is suspected once nothing was heard from it for longer
// than the allowed silence (hazelcast.max.no.heartbeat.seconds). Pure: time comes in as
// arguments, so it is tested without timers.

export class DeadlineFailureDetector {
  private readonly lastHeard = new Map<string, number>();

  constructor(private readonly maxSilenceMs: number) {}

  /** Something (a heartbeat, any message) came from `uuid` at `nowMs`. */
  heard(uuid: string, nowMs: number): void {
    const prev = this.lastHeard.get(uuid);
    if (prev === undefined || nowMs > prev) this.lastHeard.set(uuid, nowMs);
  }

  forget(uuid: string): void {
    this.lastHeard.delete(uuid);
  }

  lastHeardOf(uuid: string): number | undefined {
    return this.lastHeard.get(uuid);
  }

  /** Members silent for longer than allowed at `nowMs`. */
  silent(nowMs: number): string[] {
    const out: string[] = [];
    for (const [uuid, at] of this.lastHeard) if (nowMs - at > this.maxSilenceMs) out.push(uuid);
    return out;
  }
}
