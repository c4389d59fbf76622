// A map's Merkle tree per partition, kept up to date by the record store through the
// StoreObserver hook, and the bounds on how deep two clusters compare them. Used by the sink
// (creating observers), the target side (answering a level) and consistency checks.

import type { MapConfig } from '../config/types.js';
import type { StoreObserver, StoredValue } from '../map/record-store.js';
import { MerkleTree, hashValue } from './merkle-tree.js';

/**
 * Deepest Merkle level two clusters compare (65,536 nodes, 256 KiB per partition): deeper trees
 * are compared at this level, whose differing nodes still narrow a delta sync to their keys.
 * Keeps a check (and a hostile WanMerkle) from moving 2^26 hashes per partition.
 */
export const MAX_COMPARE_LEVEL = 16;

/** A map's Merkle tree, kept by its record store of one partition. */
export class MerkleObserver implements StoreObserver {
  constructor(readonly tree: MerkleTree) {}
  changed(key: string, before: StoredValue | undefined, after: StoredValue | undefined): void {
    this.tree.update(key, before === undefined ? undefined : hashValue(before.value, before.contentType), after === undefined ? undefined : hashValue(after.value, after.contentType));
  }
  cleared(): void {
    this.tree.clear();
  }
}

/** The observer a map's record store keeps: a Merkle tree when the map enables one. */
export function newMerkleObserver(config: MapConfig): StoreObserver | undefined {
  return config.merkleTree.enabled ? new MerkleObserver(new MerkleTree(config.merkleTree.depth)) : undefined;
}

/** Why a Merkle consistency check cannot run between clusters of different partition hash versions. */
export const MERKLE_ACROSS_VERSIONS =
  "A Merkle tree covers one partition's keys, and the two clusters put different keys in a partition, so a consistency check cannot compare them; " +
  'WAN replication and a full WAN sync work between them (a target places every key itself)';
