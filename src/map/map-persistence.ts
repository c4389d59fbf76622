// Map persistence: the persisted-entry codec and the observer that logs every change of a
// persisted map's record store through the narrow `MapPersistence` view of the member's log
// (and puts a change back when its record cannot be written). Replay is in map-recovery.ts.

import { GridError } from '../core/errors.js';
import { LogOp, type LogRecord } from '../persistence/log-format.js';
import type { MergeEntry, RecordStore, StoreObserver, StoredValue } from './record-store.js';

/** Where a persisted map's changes go (the member's persistence; a narrow view of it). */
export interface MapPersistence {
  /** False while the member loads its persisted data (what it restores is not written again). */
  readonly logging: boolean;
  /** `undo` puts the change back if the record cannot be written (it runs later, not inside append). */
  append(r: LogRecord, sync: boolean, undo?: () => void): void;
  /** Why a write of persisted data is refused now (the disk is full or failed); undefined: it is not. */
  refusal(): GridError | undefined;
}

/**
 * A persisted entry's value in the log: [f64 expiresAt][f64 lastAccessAt][f64 creationTime]
 * [f64 lastUpdateTime][f64 hits][u16 0xfffe][u16 content type length (0xffff: none)]
 * [u32 version][f64 maxIdleMs][content type utf8][value bytes]. Entries written before
 * versions existed have the content type length where the 0xfffe marker is now (no content
 * type is 65,534 bytes long) and no version or max-idle: they restore with version 0 and the
 * map's max-idle.
 */
const LEGACY_HEADER_BYTES = 5 * 8 + 2;
const ENTRY_HEADER_BYTES = 5 * 8 + 2 + 2 + 4 + 8;
const VERSIONED = 0xfffe;

const EMPTY_BUF = Buffer.alloc(0);

export function encodePersistedEntry(v: StoredValue): Buffer {
  const r = v as Partial<MergeEntry> & StoredValue;
  const ct = v.contentType === undefined ? EMPTY_BUF : Buffer.from(v.contentType, 'utf8');
  const valueBytes = v.value.length;
  const out = Buffer.allocUnsafe(ENTRY_HEADER_BYTES + ct.length + valueBytes);
  out.writeDoubleLE(r.expiresAt ?? 0, 0);
  out.writeDoubleLE(r.lastAccessAt ?? 0, 8);
  out.writeDoubleLE(r.creationTime ?? 0, 16);
  out.writeDoubleLE(r.lastUpdateTime ?? 0, 24);
  out.writeDoubleLE(r.hits ?? 0, 32);
  out.writeUInt16LE(VERSIONED, 40);
  out.writeUInt16LE(v.contentType === undefined ? 0xffff : ct.length, 42);
  out.writeUInt32LE(v.version ?? 0, 44);
  out.writeDoubleLE(r.maxIdleMs ?? 0, 48);
  ct.copy(out, ENTRY_HEADER_BYTES);
  out.write(v.value, ENTRY_HEADER_BYTES + ct.length, valueBytes, 'latin1');
  return out;
}

export function decodePersistedEntry(b: Uint8Array): MergeEntry {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < LEGACY_HEADER_BYTES) throw new GridError('INTERNAL', 'persisted map entry too short');
  const versioned = buf.readUInt16LE(40) === VERSIONED;
  if (versioned && buf.length < ENTRY_HEADER_BYTES) throw new GridError('INTERNAL', 'persisted map entry too short for its version');
  const header = versioned ? ENTRY_HEADER_BYTES : LEGACY_HEADER_BYTES;
  const ctLen = buf.readUInt16LE(versioned ? 42 : 40);
  const ctBytes = ctLen === 0xffff ? 0 : ctLen;
  if (header + ctBytes > buf.length) throw new GridError('INTERNAL', 'persisted map entry: content type runs past the end');
  return {
    expiresAt: buf.readDoubleLE(0),
    lastAccessAt: buf.readDoubleLE(8),
    creationTime: buf.readDoubleLE(16),
    lastUpdateTime: buf.readDoubleLE(24),
    hits: buf.readDoubleLE(32),
    contentType: ctLen === 0xffff ? undefined : buf.toString('utf8', header, header + ctBytes),
    value: buf.toString('latin1', header + ctBytes, buf.length),
    ...(versioned ? { version: buf.readUInt32LE(44), maxIdleMs: buf.readDoubleLE(48) } : {}),
  };
}

/** Persists every change of one record store (one map, one partition). */
export class PersistObserver implements StoreObserver {
  /** The store watched (set once it exists): an undo touches it only while it is still the partition's. */
  store: RecordStore | undefined;

  constructor(
    private readonly persist: MapPersistence,
    private readonly mapName: string,
    private readonly partitionId: number,
    private readonly sync: boolean,
    /** The partition's store now (undefined once dropped): an undo of a store that left does nothing. */
    private readonly current: () => RecordStore | undefined,
    /** Told of every change put back (WAN: the owner publishes the entry as it is again). */
    private readonly undone: (key: string) => void,
  ) {}

  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    // A restore is not encoded only to be dropped (it was 11% of a restart's CPU).
    if (!this.persist.logging) return;
    this.persist.append(
      after === undefined
        ? { op: LogOp.Remove, partitionId: this.partitionId, service: 'map', name: this.mapName, key }
        : { op: LogOp.Put, partitionId: this.partitionId, service: 'map', name: this.mapName, key, value: encodePersistedEntry(after) },
      this.sync,
      () => this.undo(key, before, after),
    );
  }

  /**
   * Put back what one change replaced (its record could not be written, or a backup could not
   * persist it). Only if the entry is still as that change left it: a later write of the key
   * stands (the log undoes the newest first, so a batch that failed is put back whole).
   */
  private undo(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    const store = this.store;
    if (store === undefined || this.current() !== store) return;
    // Time 0: an entry that expired meanwhile is still compared (and put back) as it was.
    const now = store.mergeView(key, 0);
    if (after === undefined ? now !== undefined : now === undefined || now.value !== after.value || now.contentType !== after.contentType) return;
    if (before === undefined) store.remove(key, 0);
    else store.putMerged(key, asMergeEntry(before));
    this.undone(key);
  }

  cleared(): void {
    this.persist.append({ op: LogOp.Clear, partitionId: this.partitionId, service: 'map', name: this.mapName }, this.sync);
  }
}

/** An entry as observers are told of it, with the metadata it had (zero where the map keeps none). */
function asMergeEntry(v: StoredValue): MergeEntry {
  const e = v as Partial<MergeEntry> & StoredValue;
  return {
    value: v.value,
    contentType: v.contentType,
    expiresAt: e.expiresAt ?? 0,
    lastAccessAt: e.lastAccessAt ?? 0,
    creationTime: e.creationTime ?? 0,
    lastUpdateTime: e.lastUpdateTime ?? 0,
    hits: e.hits ?? 0,
    version: e.version ?? 0,
    ...(e.maxIdleMs === undefined ? {} : { maxIdleMs: e.maxIdleMs }),
  };
}
