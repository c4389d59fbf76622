// The tuning reader: `properties` as name -> text, and from them Grid's TuningConfig (each
// `grid.X` or Hazelcast's `hazelcast.X`, with its bounds); unknown `grid.*` names are reported.

import { parseMemoryLimit } from '../../core/memory-guard.js';
import { DEFAULT_TUNING, LOG_LEVELS } from '../defaults.js';
import { show, type Problems } from '../problems.js';
import type { TuningConfig } from '../types.js';
import { checkInt, parseIntStrict, type Section } from './section.js';

export function readProperties(problems: Problems, s: Section): Map<string, string> {
  const props = new Map<string, string>();
  for (const key of Object.keys(s.obj)) {
    const v = s.raw(key);
    if (typeof v === 'string') props.set(key, v.trim());
    else if (typeof v === 'number' || typeof v === 'boolean') props.set(key, String(v));
    else if (v === undefined) props.set(key, '');
    else problems.error(s.at(key), `must be a single value, got ${show(v)}`);
  }
  return props;
}

/** Grid's own properties; any other `grid.*` name is reported as unknown. */
const TUNING_SUFFIXES = [
  'rest.max-body-bytes',
  'rest.max-header-bytes',
  'rest.max-buffered-body-bytes',
  'rest.http-path',
  'logging.level',
  'heartbeat.interval.seconds',
  'max.no.heartbeat.seconds',
  'partition.count',
  'expiry.sweep.interval.millis',
  'operation.call.timeout.millis',
  'operation.backup.timeout.millis',
  'connection.monitor.max.faults',
  'connection.monitor.interval',
  'tcp.join.port.try.count',
  'partition.max.parallel.migrations',
  'max.join.seconds',
  'partition.replica-sync-interval-seconds',
  'debug.drop-backups',
  'debug.ignore-messages',
  'merge.first.run.delay.seconds',
  'merge.next.run.delay.seconds',
  'memory.limit',
  'metrics.history-seconds',
];

export function readTuning(problems: Problems, props: ReadonlyMap<string, string>): TuningConfig {
  const pick = (suffix: string): { name: string; value: string } | undefined => {
    for (const name of [`grid.${suffix}`, `hazelcast.${suffix}`]) {
      const value = props.get(name);
      if (value !== undefined) return { name, value };
    }
    return undefined;
  };
  const int = (suffix: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const p = pick(suffix);
    if (p === undefined) return def;
    return checkInt(problems, `hazelcast.properties.${p.name}`, p.value, min, max) ?? def;
  };
  for (const name of props.keys()) {
    if (name.startsWith('grid.') && !TUNING_SUFFIXES.includes(name.slice(5))) {
      problems.warn(`hazelcast.properties.${name}`, 'unknown Grid property, ignored');
    }
  }
  // The member memory guard reads it at start (against the cgroup's or machine's memory); its form is checked here.
  const memoryLimit = pick('memory.limit');
  if (memoryLimit !== undefined) {
    try {
      parseMemoryLimit(memoryLimit.value, 1);
    } catch (e) {
      problems.error(`hazelcast.properties.${memoryLimit.name}`, (e as Error).message.replace(/^grid\.memory\.limit: /, ''));
    }
  }
  let logLevel = DEFAULT_TUNING.logLevel;
  const level = pick('logging.level');
  if (level !== undefined) {
    const upper = level.value.toUpperCase();
    if (LOG_LEVELS.includes(upper)) logLevel = upper;
    else problems.error(`hazelcast.properties.${level.name}`, `must be one of ${LOG_LEVELS.join(', ')}, got ${show(level.value)}`);
  }
  const partitions = pick('partition.count');
  if (partitions !== undefined && parseIntStrict(partitions.value) !== DEFAULT_TUNING.partitionCount) {
    problems.error(`hazelcast.properties.${partitions.name}`, `Grid always uses 271 partitions, got ${show(partitions.value)}`);
  }
  const heartbeatIntervalSeconds = int('heartbeat.interval.seconds', DEFAULT_TUNING.heartbeatIntervalSeconds, 1);
  const maxNoHeartbeatSeconds = int('max.no.heartbeat.seconds', DEFAULT_TUNING.maxNoHeartbeatSeconds, 1);
  if (maxNoHeartbeatSeconds <= heartbeatIntervalSeconds) {
    const name = pick('max.no.heartbeat.seconds')?.name ?? 'hazelcast.max.no.heartbeat.seconds';
    problems.error(
      `hazelcast.properties.${name}`,
      `must be greater than the heartbeat interval (${heartbeatIntervalSeconds}), got ${maxNoHeartbeatSeconds}`,
    );
  }
  const restMaxBodyBytes = int('rest.max-body-bytes', DEFAULT_TUNING.restMaxBodyBytes, 1);
  const restMaxBufferedBodyBytes = int('rest.max-buffered-body-bytes', DEFAULT_TUNING.restMaxBufferedBodyBytes, 1);
  if (restMaxBufferedBodyBytes < restMaxBodyBytes) {
    const name = pick('rest.max-buffered-body-bytes')?.name ?? 'grid.rest.max-buffered-body-bytes';
    problems.warn(
      `hazelcast.properties.${name}`,
      `${restMaxBufferedBodyBytes} is below rest.max-body-bytes (${restMaxBodyBytes}): bodies larger than the budget are refused with 413`,
    );
  }
  let restHttpPath = DEFAULT_TUNING.restHttpPath;
  const httpPath = pick('rest.http-path');
  if (httpPath !== undefined) {
    const v = httpPath.value.trim().toLowerCase();
    if (v === 'grid' || v === 'node') restHttpPath = v;
    else problems.error(`hazelcast.properties.${httpPath.name}`, `must be grid or node, got ${show(httpPath.value)}`);
  }
  let debugDropBackups = DEFAULT_TUNING.debugDropBackups;
  const drop = pick('debug.drop-backups');
  if (drop !== undefined) {
    const n = /^\d+(\.\d+)?$/.test(drop.value) ? Number(drop.value) : NaN;
    if (n >= 0 && n <= 1) debugDropBackups = n;
    else problems.error(`hazelcast.properties.${drop.name}`, `must be a fraction from 0 to 1, got ${show(drop.value)}`);
  }
  return {
    restMaxBodyBytes,
    restMaxHeaderBytes: int('rest.max-header-bytes', DEFAULT_TUNING.restMaxHeaderBytes, 1024),
    restMaxBufferedBodyBytes,
    restHttpPath,
    logLevel,
    heartbeatIntervalSeconds,
    maxNoHeartbeatSeconds,
    partitionCount: 271,
    expirySweepIntervalMillis: int('expiry.sweep.interval.millis', DEFAULT_TUNING.expirySweepIntervalMillis, 1),
    operationCallTimeoutMillis: int('operation.call.timeout.millis', DEFAULT_TUNING.operationCallTimeoutMillis, 1),
    operationBackupTimeoutMillis: int('operation.backup.timeout.millis', DEFAULT_TUNING.operationBackupTimeoutMillis, 1),
    connectionMonitorMaxFaults: int('connection.monitor.max.faults', DEFAULT_TUNING.connectionMonitorMaxFaults, 1),
    connectionMonitorIntervalMillis: int('connection.monitor.interval', DEFAULT_TUNING.connectionMonitorIntervalMillis, 1),
    tcpJoinPortTryCount: int('tcp.join.port.try.count', DEFAULT_TUNING.tcpJoinPortTryCount, 1, 65535),
    maxParallelMigrations: int('partition.max.parallel.migrations', DEFAULT_TUNING.maxParallelMigrations, 1),
    maxJoinSeconds: int('max.join.seconds', DEFAULT_TUNING.maxJoinSeconds, 1),
    replicaSyncIntervalSeconds: int('partition.replica-sync-interval-seconds', DEFAULT_TUNING.replicaSyncIntervalSeconds, 0),
    debugDropBackups,
    debugIgnoreMessages: pick('debug.ignore-messages')?.value ?? DEFAULT_TUNING.debugIgnoreMessages,
    mergeFirstRunDelaySeconds: int('merge.first.run.delay.seconds', DEFAULT_TUNING.mergeFirstRunDelaySeconds, 1),
    mergeNextRunDelaySeconds: int('merge.next.run.delay.seconds', DEFAULT_TUNING.mergeNextRunDelaySeconds, 1),
    metricsHistorySeconds: int('metrics.history-seconds', DEFAULT_TUNING.metricsHistorySeconds, 0, 3600),
  };
}
