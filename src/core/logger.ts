// Logging through pino, with Hazelcast's (java.util.logging) level names on the outside:
// the log-level endpoint, `hazelcast.logging.level`, `grid start --log-level` and the `level`
// field of every log line speak SEVERE/WARNING/INFO/CONFIG/FINE/FINER/FINEST, while pino keeps
// its numeric levels inside. The level changes at run time without a restart. Lines are JSON;
// `prettyDestination` turns them into one readable line each (pino-pretty, loaded only then).
// The one module that imports the logging library (scripts/check-layers.mjs holds it to that).

import { pino, destination as pinoDestination, stdTimeFunctions, type Logger as PinoLogger, type DestinationStream } from 'pino';

export type Logger = PinoLogger<'config' | 'finer'>;
/** Where log lines go; the logging library's type, named here so no other module imports it. */
export type { DestinationStream };

/** Standard output, written synchronously (a line is out before the process can exit): the default of every member. */
export function stdoutDestination(): ReturnType<typeof pinoDestination> {
  return pinoDestination({ dest: 1, sync: true });
}

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

/** pino's numeric level -> the Hazelcast name a log line carries (pino's fatal is SEVERE too). */
const LABEL_OF: Readonly<Record<number, string>> = {
  60: 'SEVERE',
  50: 'SEVERE',
  40: 'WARNING',
  30: 'INFO',
  25: 'CONFIG',
  20: 'FINE',
  15: 'FINER',
  10: 'FINEST',
};

/** The `level` label of a line logged at pino level `n`. */
export function levelLabel(n: number): string {
  return LABEL_OF[n] ?? String(n);
}

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
      formatters: { level: (_label, n) => ({ level: levelLabel(n) }) },
      redact: { paths: ['password', '*.password'], censor: '***' },
    },
    opts.destination ?? stdoutDestination(),
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

/** Something lines can be written to (a SonicBoom, a Writable). */
export interface LineSink {
  write(chunk: string): unknown;
}

/**
 * A destination that writes each JSON log line to `out` as one readable line:
 * `[12:00:01.234] INFO: member joined {"address":"127.0.0.1:5702"}`. pino-pretty is imported
 * here and only here, so a member logging JSON never loads it.
 */
export async function prettyDestination(out: LineSink, opts: { colorize: boolean }): Promise<DestinationStream> {
  const { prettyFactory } = (await import('pino-pretty')).default;
  const prettify = prettyFactory({
    colorize: opts.colorize,
    customLevels: 'SEVERE:50,WARNING:40,INFO:30,CONFIG:25,FINE:20,FINER:15,FINEST:10',
    customColors: 'severe:red,warning:yellow,info:green,config:cyan,fine:blue,finer:gray,finest:gray',
    useOnlyCustomProps: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The member's name is the same on every line of one process.
    ignore: 'member',
    singleLine: true,
  });
  return { write: (line: string) => void out.write(prettify(line)) };
}
