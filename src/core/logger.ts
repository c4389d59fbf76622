// Logging through pino, with Hazelcast's (java.util.logging) level names on the outside:
// the log-level endpoint and `hazelcast.logging.level` speak SEVERE/WARNING/INFO/FINE...,
// and the level changes at run time without a restart.

import { pino, destination as pinoDestination, stdTimeFunctions, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger<'config' | 'finer'>;

/** Hazelcast level names, most severe first. */
export const LOG_LEVEL_NAMES = ['OFF', 'SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST', 'ALL'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

const TO_PINO: Record<LogLevelName, string> = {
  OFF: 'silent',
  SEVERE: 'error',
  WARNING: 'warn',
  INFO: 'info',
  CONFIG: 'config',
  FINE: 'debug',
  FINER: 'finer',
  FINEST: 'trace',
  ALL: 'trace',
};

/** Parse a level name, any case; undefined when it is not one. */
export function parseLogLevel(name: string): LogLevelName | undefined {
  const upper = name.trim().toUpperCase();
  return (LOG_LEVEL_NAMES as readonly string[]).includes(upper) ? (upper as LogLevelName) : undefined;
}

export interface LogControl {
  readonly logger: Logger;
  /** The level set at run time, or null when the configured level is in force. */
  override(): LogLevelName | null;
  set(level: LogLevelName): void;
  /** Back to the configured level. */
  reset(): void;
}

export function createLogControl(opts: {
  level: LogLevelName;
  destination?: DestinationStream;
  bindings?: Record<string, unknown>;
}): LogControl {
  const logger = pino(
    {
      level: TO_PINO[opts.level],
      customLevels: { config: 25, finer: 15 },
      base: { ...(opts.bindings ?? {}) },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['password', '*.password'], censor: '***' },
    },
    opts.destination ?? pinoDestination({ dest: 1, sync: true }),
  ) as Logger;
  let current: LogLevelName | null = null;
  return {
    logger,
    override: () => current,
    set(level) {
      current = level;
      logger.level = TO_PINO[level];
    },
    reset() {
      current = null;
      logger.level = TO_PINO[opts.level];
    },
  };
}
