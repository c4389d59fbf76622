// The Merkle tree of one map in one partition, for WAN consistency checks and delta sync: a
// perfect binary tree of `depth` levels whose leaves cover equal ranges of the key hash space.
// Pure (no I/O, no timers); MerkleComparison is the compare protocol the WAN shell runs over the wire.
//
// Hashes travel between clusters, so every function here is part of the wire contract: the
// pinned vectors in test/unit/wan/merkle-tree.test.ts must never change.
//
// Model (Hazelcast's, with its depth limits): level 0 is the root, level depth-1 holds the
// 2^(depth-1) leaves, nodes are numbered breadth-first within their level. Node `i` of level `L`
// covers the key hashes whose top L bits (of the hash offset to unsigned, so the ranges run in
// signed order from -2^31) equal `i`. A node's hash is the sum mod 2^32 of the entry hashes of
// every entry in its range, so:
//   - an update adds one delta to the leaf and its ancestors: no rehashing, order-independent;
//   - an inner node is the sum of its two children;
//   - level L means the same ranges and the same hashes at every depth, so trees of different
//     depths compare at the shallower one's leaf level.

import { GridError } from '../core/errors.js';
import { fmix32, murmur3Latin1, murmur3String } from '../core/murmur3.js';
import type { StoredValue } from '../map/record-store.js';

/** Hazelcast's MerkleTreeConfig limits (inclusive, as its setDepth checks them) and default. */
export const MERKLE_MIN_DEPTH = 2;
export const MERKLE_MAX_DEPTH = 27;
export const MERKLE_DEFAULT_DEPTH = 10;

/** Seeds of the key and value hashes. Wire contract: never change. */
export const MERKLE_KEY_SEED = 0x6d65726b; // 'merk'
export const MERKLE_VALUE_SEED = 0x6c656166; // 'leaf'

const GOLDEN = 0x9e3779b1;
const SIGN = 0x80000000;

/** The hash of a key: places it in a leaf and enters its entry hash (UTF-8 bytes, no allocation). */
export function hashKey(key: string): number {
  return murmur3String(key, MERKLE_KEY_SEED);
}

/**
 * The hash of a stored value: its latin1 bytes, then its Content-Type (absent and empty differ).
 * Expiry and statistics are not part of it: they legitimately differ between clusters.
 */
export function hashValue(value: string, contentType: string | undefined): number {
  const h = murmur3Latin1(value, MERKLE_VALUE_SEED);
  return contentType === undefined ? h : murmur3String(contentType, h);
}

/**
 * The contribution of one entry to its leaf. For a fixed key it is a bijection of the value
 * hash (and the other way round), so any change of a value hash changes the leaf.
 */
export function entryHash(keyHash: number, valueHash: number): number {
  return fmix32(keyHash ^ Math.imul(valueHash, GOLDEN));
}

/** The index within `level` of the node whose range holds `keyHash` (0 <= level <= 31). */
export function nodeOfKeyHash(keyHash: number, level: number): number {
  return level === 0 ? 0 : ((keyHash ^ SIGN) >>> (32 - level));
}

/** Throws CONFIG_INVALID unless `depth` is an integer in [MERKLE_MIN_DEPTH, MERKLE_MAX_DEPTH]. */
export function validateMerkleDepth(depth: number): void {
  if (!Number.isInteger(depth) || depth < MERKLE_MIN_DEPTH || depth > MERKLE_MAX_DEPTH) {
    throw new GridError(
      'CONFIG_INVALID',
      `Merkle tree depth ${String(depth)} is outside of the allowed range ${MERKLE_MIN_DEPTH}-${MERKLE_MAX_DEPTH}`,
    );
  }
}

/** The result of comparing two trees. */
export interface MerkleDiff {
  /** The level compared as leaves: min(depth of both) - 1. */
  readonly level: number;
  /** Indexes within `level` of the differing nodes, ascending. */
  readonly leaves: number[];
  /** Node hashes that crossed (or would cross) the wire. */
  readonly nodesCompared: number;
  /** Request/answer rounds. */
  readonly requests: number;
}

export interface MerkleComparisonOptions {
  /** Levels descended per round below a differing node (fewer round trips, more nodes each). Default 1. */
  readonly levelsPerRound?: number;
  /** Most node hashes asked for in one request. Default 4096 (16 KiB of hashes). */
  readonly maxNodesPerRequest?: number;
}

/** Nodes of one level whose hashes the comparing side asks the other for. */
export interface NodeRequest {
  readonly level: number;
  /** Indexes within `level`, ascending. */
  readonly indexes: Uint32Array;
}

/**
 * The tree must follow every change of its record store, replicated or not (expiry, sweeps and
 * clear too), or it drifts from the data; a partition arriving by migration is built with
 * fromEntries(). Memory is two typed arrays, independent of the number of entries: 6,140 bytes
 * at depth 10.
 */
export class MerkleTree {
  readonly depth: number;
  readonly leafLevel: number;
  readonly leafCount: number;
  /** Every node's hash, breadth-first: level L starts at 2^L - 1. */
  private readonly nodes: Int32Array;
  /** Entries per leaf. */
  private readonly counts: Int32Array;
  private readonly leafOffset: number;
  private readonly leafShift: number;
  private entries = 0;

  constructor(depth: number = MERKLE_DEFAULT_DEPTH) {
    validateMerkleDepth(depth);
    this.depth = depth;
    this.leafLevel = depth - 1;
    this.leafCount = 2 ** this.leafLevel;
    this.leafOffset = this.leafCount - 1;
    this.leafShift = 32 - this.leafLevel;
    this.nodes = new Int32Array(2 ** depth - 1);
    this.counts = new Int32Array(this.leafCount);
  }

  /** A tree of `entries` built in one pass (leaves first, then each level from its children). */
  static fromEntries(entries: Iterable<readonly [string, StoredValue]>, depth: number = MERKLE_DEFAULT_DEPTH): MerkleTree {
    const tree = new MerkleTree(depth);
    const { nodes, counts, leafOffset, leafShift } = tree;
    let n = 0;
    for (const [key, v] of entries) {
      const keyHash = hashKey(key);
      const leaf = (keyHash ^ SIGN) >>> leafShift;
      nodes[leafOffset + leaf] = nodes[leafOffset + leaf]! + entryHash(keyHash, hashValue(v.value, v.contentType));
      counts[leaf] = counts[leaf]! + 1;
      n++;
    }
    for (let i = leafOffset - 1; i >= 0; i--) nodes[i] = nodes[2 * i + 1]! + nodes[2 * i + 2]!;
    tree.entries = n;
    return tree;
  }

  /** Entries in the tree. */
  get entryCount(): number {
    return this.entries;
  }

  /** Bytes of the typed arrays (the tree's whole per-entry-independent memory, besides ~200 bytes of object). */
  get footprintBytes(): number {
    return this.nodes.byteLength + this.counts.byteLength;
  }

  /**
   * Record a change of `key`: put (old undefined), update, or remove (new undefined), with the
   * value hashes from hashValue(). Allocation-free: one key hash and `depth` additions.
   */
  update(key: string, oldValueHash: number | undefined, newValueHash: number | undefined): void {
    this.updateHashed(hashKey(key), oldValueHash, newValueHash);
  }

  /** update() for a caller that already holds hashKey(key). */
  updateHashed(keyHash: number, oldValueHash: number | undefined, newValueHash: number | undefined): void {
    let delta = 0;
    let countDelta = 0;
    if (oldValueHash !== undefined) {
      delta = -entryHash(keyHash, oldValueHash);
      countDelta = -1;
    }
    if (newValueHash !== undefined) {
      delta += entryHash(keyHash, newValueHash);
      countDelta++;
    }
    delta |= 0;
    if (delta === 0 && countDelta === 0) return;
    const leaf = (keyHash ^ SIGN) >>> this.leafShift;
    const counts = this.counts;
    counts[leaf] = counts[leaf]! + countDelta;
    this.entries += countDelta;
    const nodes = this.nodes;
    // Int32Array stores wrap mod 2^32, which is the arithmetic the hashes are defined in.
    for (let i = this.leafOffset + leaf; i > 0; i = (i - 1) >> 1) nodes[i] = nodes[i]! + delta;
    nodes[0] = nodes[0]! + delta;
  }

  /** The leaf of `key`. */
  leafOf(key: string): number {
    return (hashKey(key) ^ SIGN) >>> this.leafShift;
  }

  /** The node of `key` on `level` (its leaf's ancestor there). */
  nodeOf(key: string, level: number): number {
    this.checkLevel(level);
    return nodeOfKeyHash(hashKey(key), level);
  }

  /** Inclusive range [low, high] of signed 32-bit key hashes that node `index` of `level` covers. */
  keyHashRange(level: number, index: number): [number, number] {
    this.checkNode(level, index);
    const width = 2 ** (32 - level);
    const low = index * width - SIGN;
    return [low, low + width - 1];
  }

  rootHash(): number {
    return this.nodes[0]!;
  }

  nodeHash(level: number, index: number): number {
    this.checkNode(level, index);
    return this.nodes[2 ** level - 1 + index]!;
  }

  /** A copy of the hashes of every node on `level` (2^level of them). */
  levelHashes(level: number): Int32Array {
    this.checkLevel(level);
    const start = 2 ** level - 1;
    return this.nodes.slice(start, start + 2 ** level);
  }

  /** The hashes of the requested nodes of `level`, in request order: the answer to a NodeRequest. */
  nodeHashes(level: number, indexes: ArrayLike<number>): Int32Array {
    this.checkLevel(level);
    const start = 2 ** level - 1;
    const width = 2 ** level;
    const out = new Int32Array(indexes.length);
    for (let k = 0; k < indexes.length; k++) {
      const i = indexes[k]!;
      if (!Number.isInteger(i) || i < 0 || i >= width) throw new GridError('BAD_REQUEST', `Merkle node ${String(i)} is not on level ${level}`);
      out[k] = this.nodes[start + i]!;
    }
    return out;
  }

  /** Entries in leaf `leaf`. */
  leafEntryCount(leaf: number): number {
    this.checkNode(this.leafLevel, leaf);
    return this.counts[leaf]!;
  }

  /** Entries under node `index` of `level`. */
  nodeEntryCount(level: number, index: number): number {
    this.checkNode(level, index);
    const span = 2 ** (this.leafLevel - level);
    let n = 0;
    for (let i = index * span, end = i + span; i < end; i++) n += this.counts[i]!;
    return n;
  }

  /**
   * A predicate telling whether a key lies under one of `indexes` of `level` (default: the
   * leaves): which entries a delta sync sends for the differing leaves of a comparison.
   */
  keyFilter(indexes: Iterable<number>, level: number = this.leafLevel): (key: string) => boolean {
    this.checkLevel(level);
    const marked = new Uint8Array(2 ** level);
    for (const i of indexes) {
      this.checkNode(level, i);
      marked[i] = 1;
    }
    return (key) => marked[nodeOfKeyHash(hashKey(key), level)] === 1;
  }

  /** Compare with another tree in this process: the protocol of MerkleComparison, answered locally. */
  diff(other: MerkleTree, options?: MerkleComparisonOptions): MerkleDiff {
    const cmp = new MerkleComparison(this, other.depth, options);
    for (let req = cmp.next(); req !== undefined; req = cmp.next()) cmp.receive(other.nodeHashes(req.level, req.indexes));
    return cmp.result();
  }

  clear(): void {
    this.nodes.fill(0);
    this.counts.fill(0);
    this.entries = 0;
  }

  /** @internal Unchecked read for MerkleComparison. */
  hashAt(level: number, index: number): number {
    return this.nodes[2 ** level - 1 + index]!;
  }

  private checkLevel(level: number): void {
    if (!Number.isInteger(level) || level < 0 || level > this.leafLevel) {
      throw new GridError('BAD_REQUEST', `Merkle level ${String(level)} is not in 0-${this.leafLevel}`);
    }
  }

  private checkNode(level: number, index: number): void {
    this.checkLevel(level);
    if (!Number.isInteger(index) || index < 0 || index >= 2 ** level) {
      throw new GridError('BAD_REQUEST', `Merkle node ${String(index)} is not on level ${level}`);
    }
  }
}

/**
 * One side of a tree comparison, as a state machine: next() says which remote node hashes to
 * fetch, receive() takes them; only the children of differing nodes are asked for, so equal
 * trees cost one hash and k differing leaves at most 1 + 2k(levels) hashes (one level per round).
 * The remote answers with MerkleTree.nodeHashes(request.level, request.indexes).
 */
export class MerkleComparison {
  /** The level compared as leaves: the shallower tree's leaf level. */
  readonly level: number;
  private readonly stride: number;
  private readonly maxNodes: number;
  /** Level whose nodes are being asked for. */
  private current = 0;
  /** Differing nodes of the level above `current` whose descendants are being asked for. */
  private parents: number[] = [0];
  private parentLevel = -1;
  private parentPos = 0;
  private childPos = 0;
  /** Differing nodes found on `current`. */
  private differing: number[] = [];
  private outstanding: NodeRequest | undefined;
  private finished = false;
  private nodes = 0;
  private requests = 0;

  constructor(
    private readonly local: MerkleTree,
    remoteDepth: number,
    options: MerkleComparisonOptions = {},
  ) {
    validateMerkleDepth(remoteDepth);
    this.level = Math.min(local.depth, remoteDepth) - 1;
    this.stride = options.levelsPerRound ?? 1;
    this.maxNodes = options.maxNodesPerRequest ?? 4096;
    if (!Number.isInteger(this.stride) || this.stride < 1) throw new GridError('BAD_REQUEST', 'levelsPerRound must be an integer >= 1');
    if (!Number.isInteger(this.maxNodes) || this.maxNodes < 1) throw new GridError('BAD_REQUEST', 'maxNodesPerRequest must be an integer >= 1');
  }

  get done(): boolean {
    return this.finished;
  }

  /** The next nodes to ask the remote for, or undefined once the comparison is done. */
  next(): NodeRequest | undefined {
    if (this.outstanding !== undefined) throw new GridError('CONFLICT', 'Merkle comparison: the previous request has no answer yet');
    if (this.finished) return undefined;
    if (this.parentPos === this.parents.length) {
      // Every node of `current` is compared: descend below the differing ones, or stop.
      if (this.current === this.level || this.differing.length === 0) {
        this.finished = true;
        return undefined;
      }
      this.parents = this.differing;
      this.parentLevel = this.current;
      this.current = Math.min(this.current + this.stride, this.level);
      this.differing = [];
      this.parentPos = 0;
      this.childPos = 0;
    }
    const span = this.parentLevel < 0 ? 1 : 2 ** (this.current - this.parentLevel);
    const remaining = (this.parents.length - this.parentPos) * span - this.childPos;
    const indexes = new Uint32Array(Math.min(this.maxNodes, remaining));
    for (let k = 0; k < indexes.length; k++) {
      indexes[k] = this.parents[this.parentPos]! * span + this.childPos;
      if (++this.childPos === span) {
        this.childPos = 0;
        this.parentPos++;
      }
    }
    this.outstanding = { level: this.current, indexes };
    return this.outstanding;
  }

  /** The remote's hashes for the last request, in its order. */
  receive(hashes: ArrayLike<number>): void {
    const req = this.outstanding;
    if (req === undefined) throw new GridError('CONFLICT', 'Merkle comparison: an answer without a request');
    if (hashes.length !== req.indexes.length) {
      throw new GridError('BAD_REQUEST', `Merkle comparison: ${hashes.length} hashes for ${req.indexes.length} nodes`);
    }
    for (let k = 0; k < hashes.length; k++) {
      const i = req.indexes[k]!;
      if (this.local.hashAt(req.level, i) !== (hashes[k]! | 0)) this.differing.push(i);
    }
    this.nodes += hashes.length;
    this.requests++;
    this.outstanding = undefined;
  }

  /** The outcome; complete once next() has returned undefined. */
  result(): MerkleDiff {
    return { level: this.level, leaves: this.finished ? this.differing.slice() : [], nodesCompared: this.nodes, requests: this.requests };
  }
}
