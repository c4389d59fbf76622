// Small fakes shared by the unit tests of services: a log sink, invokers.

import { createLogControl, type LogControl, type LogLevelName } from '../../../src/core/logger.js';
import type { Invoker, Operation } from '../../../src/invocation/invoker.js';
import type { GridError } from '../../../src/core/errors.js';

/** Log lines written through pino, parsed. */
export { LogCapture as LogSink } from '../../support/logs.js';
import { LogCapture as LogSink } from '../../support/logs.js';

export function captureLogs(level: LogLevelName = 'ALL'): { sink: LogSink; control: LogControl } {
  const sink = new LogSink();
  return { sink, control: createLogControl({ level, destination: sink }) };
}

/** Runs every operation here and now, like the LocalInvoker of a member that owns everything. */
export class RecordingInvoker implements Invoker {
  readonly calls: { partitionId: number; name: string; mutating: boolean }[] = [];
  invoke<T>(partitionId: number, op: Operation<T>): Promise<T> {
    this.calls.push({ partitionId, name: op.name, mutating: op.mutating });
    try {
      return Promise.resolve(op.run());
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }
}

/** Refuses every operation with `error` (the op never runs). */
export class FailingInvoker implements Invoker {
  constructor(private readonly error: GridError) {}
  invoke<T>(_partitionId: number, _op: Operation<T>): Promise<T> {
    return Promise.reject(this.error);
  }
}

/** Let every pending promise continuation run (no timers involved). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
