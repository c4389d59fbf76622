// The invoker's Operation of a map operation built from its parts: one constructor call per
// operation instead of the same fields written out each time (the hot get and put are classes
// of their own in map-operations.ts).

import type { BackupSpec, Operation } from '../invocation/invoker.js';
import type { WireValue } from '../protocol/codec.js';

export class MapOp<T> implements Operation<T> {
  readonly service = 'map';
  constructor(readonly name: string, readonly type: string, readonly mutating: boolean, readonly args: readonly WireValue[] | undefined, readonly run: () => T, readonly backup?: (result: T) => BackupSpec | undefined) {}
}
