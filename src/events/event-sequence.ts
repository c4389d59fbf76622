// Pure: what a member that receives change events makes of each one, per (map, partition): a
// new one is delivered, one seen already (a message sent twice, a retried batch) is dropped,
// one after a hole in its sequence, or from a newer ownership term (a backup promoted after
// its owner died), is delivered with a warning that events before it may have been lost, and
// one from an older term (a late message of a former owner) is dropped.

export type Verdict =
  /** The next event of the sequence, or the first this member sees of the partition. */
  | 'deliver'
  /** Seen already (same term, sequence not above the last delivered): dropped. */
  | 'duplicate'
  /** Same term, sequence beyond the next: delivered; events in between were lost. */
  | 'gap'
  /** A newer term: delivered; what the former owner had not sent yet may be lost. */
  | 'newTerm'
  /** An older term than the one delivered already: dropped. */
  | 'stale';

interface Position {
  epoch: number;
  sequence: number;
}

export class SequenceTracker {
  private readonly maps = new Map<string, (Position | undefined)[]>();

  admit(mapName: string, partitionId: number, epoch: number, sequence: number): Verdict {
    let positions = this.maps.get(mapName);
    if (positions === undefined) this.maps.set(mapName, (positions = []));
    const p = positions[partitionId];
    if (p === undefined) {
      positions[partitionId] = { epoch, sequence };
      return 'deliver';
    }
    if (epoch < p.epoch) return 'stale';
    if (epoch > p.epoch) {
      p.epoch = epoch;
      p.sequence = sequence;
      return 'newTerm';
    }
    if (sequence <= p.sequence) return 'duplicate';
    const next = sequence === p.sequence + 1;
    p.sequence = sequence;
    return next ? 'deliver' : 'gap';
  }

  /** The last delivered position of a map's partition. */
  position(mapName: string, partitionId: number): { epoch: number; sequence: number } | undefined {
    const p = this.maps.get(mapName)?.[partitionId];
    return p === undefined ? undefined : { epoch: p.epoch, sequence: p.sequence };
  }

  /** Nobody here listens to the map any more: start afresh when somebody does again. */
  forget(mapName: string): void {
    this.maps.delete(mapName);
  }
}
