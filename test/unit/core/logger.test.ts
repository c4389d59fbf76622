import { describe, expect, it } from 'vitest';
import { createLogControl, LOG_LEVEL_NAMES, parseLogLevel, prettyDestination } from '../../../src/core/logger.js';
import { captureLogs } from './fakes.js';

describe('parseLogLevel', () => {
  it('knows every Hazelcast level name', () => {
    expect(LOG_LEVEL_NAMES).toEqual(['OFF', 'SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST', 'ALL']);
    for (const name of LOG_LEVEL_NAMES) expect(parseLogLevel(name)).toBe(name);
  });

  it('is case-insensitive and ignores surrounding whitespace', () => {
    expect(parseLogLevel('fine')).toBe('FINE');
    expect(parseLogLevel('Finest')).toBe('FINEST');
    expect(parseLogLevel('  warning\n')).toBe('WARNING');
  });

  it('rejects anything else', () => {
    for (const bad of ['', ' ', 'DEBUG', 'WARN', 'ERROR', 'TRACE', 'FINE ST', 'INFO2', 'debug', 'off!']) {
      expect(parseLogLevel(bad), bad).toBeUndefined();
    }
  });
});

describe('LogControl', () => {
  it('a debug line appears only after set("FINE"), and disappears after reset()', () => {
    const { sink, control } = captureLogs('INFO');
    const log = control.logger;
    log.debug('hidden 1');
    log.info('shown 1');
    expect(control.override()).toBeNull();
    control.set('FINE');
    expect(control.override()).toBe('FINE');
    log.debug('shown 2');
    control.reset();
    expect(control.override()).toBeNull();
    log.debug('hidden 2');
    log.info('shown 3');
    expect(sink.messages()).toEqual(['shown 1', 'shown 2', 'shown 3']);
  });

  it('maps each Hazelcast level onto what gets through', () => {
    const { sink, control } = captureLogs('INFO');
    const log = control.logger;
    const emitAll = (): string[] => {
      sink.lines.length = 0;
      log.fatal('fatal');
      log.error('error');
      log.warn('warn');
      log.info('info');
      log.config('config');
      log.debug('debug');
      log.finer('finer');
      log.trace('trace');
      return sink.messages();
    };
    const expected: Record<string, string[]> = {
      OFF: [],
      SEVERE: ['fatal', 'error'],
      WARNING: ['fatal', 'error', 'warn'],
      INFO: ['fatal', 'error', 'warn', 'info'],
      CONFIG: ['fatal', 'error', 'warn', 'info', 'config'],
      FINE: ['fatal', 'error', 'warn', 'info', 'config', 'debug'],
      FINER: ['fatal', 'error', 'warn', 'info', 'config', 'debug', 'finer'],
      FINEST: ['fatal', 'error', 'warn', 'info', 'config', 'debug', 'finer', 'trace'],
      ALL: ['fatal', 'error', 'warn', 'info', 'config', 'debug', 'finer', 'trace'],
    };
    for (const level of LOG_LEVEL_NAMES) {
      control.set(level);
      expect(emitAll(), level).toEqual(expected[level]);
      expect(control.override()).toBe(level);
    }
  });

  it('the configured level is what reset() restores', () => {
    const { sink, control } = captureLogs('WARNING');
    control.set('ALL');
    control.reset();
    control.logger.info('hidden');
    control.logger.warn('shown');
    expect(sink.messages()).toEqual(['shown']);
  });

  it('writes JSON lines with level labels, and redacts passwords', () => {
    const { sink, control } = captureLogs('INFO');
    control.logger.info({ password: 'S3cret', user: { name: 'u', password: 'Nested' } }, 'login');
    expect(sink.lines).toHaveLength(1);
    const line = sink.lines[0]!;
    expect(line.level).toBe('INFO');
    expect(line.msg).toBe('login');
    expect(line.password).toBe('***');
    expect((line.user as Record<string, unknown>).password).toBe('***');
    expect(JSON.stringify(sink.lines)).not.toMatch(/S3cret|Nested/);
  });

  it('custom levels carry their own label', () => {
    const { sink, control } = captureLogs('ALL');
    control.logger.config('c');
    control.logger.finer('f');
    expect(sink.lines.map((l) => l.level)).toEqual(['CONFIG', 'FINER']);
  });
});

describe('log lines speak the Hazelcast level names', () => {
  it('every pino level is labelled with the name config and the log-level endpoint use', () => {
    const { sink, control } = captureLogs('ALL');
    const log = control.logger;
    log.fatal('a');
    log.error('b');
    log.warn('c');
    log.info('d');
    log.config('e');
    log.debug('f');
    log.finer('g');
    log.trace('h');
    expect(sink.lines.map((l) => l.level)).toEqual(['SEVERE', 'SEVERE', 'WARNING', 'INFO', 'CONFIG', 'FINE', 'FINER', 'FINEST']);
    // pino's numeric levels stay inside: the level checks still work by pino name.
    control.set('FINE');
    expect(log.isLevelEnabled('debug')).toBe(true);
    expect(log.isLevelEnabled('finer')).toBe(false);
  });

  it('the pretty destination writes one readable line per entry: time, level, message, key fields', async () => {
    const out: string[] = [];
    const dest = await prettyDestination({ write: (s: string) => out.push(s) }, { colorize: false });
    const log = createLogControl({ level: 'ALL', destination: dest, bindings: { member: 'm1' } }).logger;
    log.info({ address: '127.0.0.1:5702' }, 'member joined');
    log.warn('careful');
    log.trace('heartbeat');
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: member joined \{"address":"127\.0\.0\.1:5702"\}\n$/);
    expect(out[1]).toMatch(/\] WARNING: careful\n$/);
    expect(out[2]).toMatch(/\] FINEST: heartbeat\n$/);
    // The member name is the same on every line of a process: not repeated.
    expect(out.join('')).not.toContain('m1');
  });
});

