import { describe, expect, it } from 'vitest';
import { configFromObject, defaultConfig, parseConfigText, type TuningConfig } from '../../../src/config/index.js';
import { configErrorOf } from './helpers.js';

const tuning = (properties: Record<string, unknown>): TuningConfig => configFromObject({ properties }).config.tuning;

// suffix -> field, Hazelcast's default, a valid value, the accepted range as messages say it
const CLUSTER_PROPERTIES: readonly [string, keyof TuningConfig, number, number, string][] = [
  ['operation.call.timeout.millis', 'operationCallTimeoutMillis', 60000, 1500, 'an integer >= 1'],
  ['operation.backup.timeout.millis', 'operationBackupTimeoutMillis', 5000, 250, 'an integer >= 1'],
  ['connection.monitor.max.faults', 'connectionMonitorMaxFaults', 3, 5, 'an integer >= 1'],
  ['connection.monitor.interval', 'connectionMonitorIntervalMillis', 100, 40, 'an integer >= 1'],
  ['tcp.join.port.try.count', 'tcpJoinPortTryCount', 3, 1, 'an integer 1-65535'],
  ['partition.max.parallel.migrations', 'maxParallelMigrations', 10, 2, 'an integer >= 1'],
  ['max.join.seconds', 'maxJoinSeconds', 300, 30, 'an integer >= 1'],
  // at or above rest.max-body-bytes (64 MiB) so that no warning is given
  ['rest.max-buffered-body-bytes', 'restMaxBufferedBodyBytes', 268435456, 134217728, 'an integer >= 1'],
];

describe('cluster tuning properties', () => {
  it.each(CLUSTER_PROPERTIES)('%s: default, hazelcast.* and grid.* names, grid.* wins', (suffix, field, def, value) => {
    expect(defaultConfig().config.tuning[field]).toBe(def);
    expect(tuning({ [`hazelcast.${suffix}`]: value })[field]).toBe(value);
    expect(tuning({ [`grid.${suffix}`]: String(value) })[field]).toBe(value);
    expect(tuning({ [`hazelcast.${suffix}`]: value + 7, [`grid.${suffix}`]: value })[field]).toBe(value);
    // A known grid.* name gives no "unknown Grid property" warning.
    expect(configFromObject({ properties: { [`grid.${suffix}`]: value } }).warnings).toEqual([]);
  });

  it.each(CLUSTER_PROPERTIES)('%s: below 1 or not an integer is an error with the property path', (suffix, _f, _d, _v, range) => {
    expect(configErrorOf(() => tuning({ [`hazelcast.${suffix}`]: 0 })).problems).toEqual([
      `inline: hazelcast.properties.hazelcast.${suffix}: must be ${range}, got "0"`,
    ]);
    expect(configErrorOf(() => tuning({ [`grid.${suffix}`]: 'soon' })).problems).toEqual([
      `inline: hazelcast.properties.grid.${suffix}: must be ${range}, got "soon"`,
    ]);
  });

  it('tcp.join.port.try.count is at most 65535', () => {
    expect(configErrorOf(() => tuning({ 'hazelcast.tcp.join.port.try.count': 70000 })).message).toBe(
      'inline: hazelcast.properties.hazelcast.tcp.join.port.try.count: must be an integer 1-65535, got "70000"',
    );
  });

  it('read from XML <properties> too', () => {
    const { config, warnings } = parseConfigText(
      `<hazelcast><properties>
         <property name="hazelcast.operation.call.timeout.millis">120000</property>
         <property name="hazelcast.partition.max.parallel.migrations">4</property>
         <property name="grid.connection.monitor.interval">250</property>
       </properties></hazelcast>`,
      'xml',
      'grid.xml',
    );
    expect(warnings).toEqual([]);
    expect(config.tuning).toMatchObject({ operationCallTimeoutMillis: 120000, maxParallelMigrations: 4, connectionMonitorIntervalMillis: 250 });
  });

  it('heartbeat properties keep working under both names', () => {
    expect(tuning({ 'hazelcast.heartbeat.interval.seconds': 2, 'hazelcast.max.no.heartbeat.seconds': 9 })).toMatchObject({
      heartbeatIntervalSeconds: 2,
      maxNoHeartbeatSeconds: 9,
    });
    expect(tuning({ 'grid.heartbeat.interval.seconds': 1, 'hazelcast.heartbeat.interval.seconds': 3 }).heartbeatIntervalSeconds).toBe(1);
    expect(configErrorOf(() => tuning({ 'hazelcast.heartbeat.interval.seconds': 10, 'hazelcast.max.no.heartbeat.seconds': 10 })).message).toBe(
      'inline: hazelcast.properties.hazelcast.max.no.heartbeat.seconds: must be greater than the heartbeat interval (10), got 10',
    );
  });

  it('rest.max-buffered-body-bytes below rest.max-body-bytes is accepted with a warning (larger bodies get 413)', () => {
    const { config, warnings } = configFromObject({
      properties: { 'grid.rest.max-buffered-body-bytes': 1048576, 'grid.rest.max-body-bytes': 2097152 },
    });
    expect(config.tuning).toMatchObject({ restMaxBufferedBodyBytes: 1048576, restMaxBodyBytes: 2097152 });
    expect(warnings).toEqual([
      'inline: hazelcast.properties.grid.rest.max-buffered-body-bytes: 1048576 is below rest.max-body-bytes (2097152): bodies larger than the budget are refused with 413',
    ]);
    expect(configFromObject({ properties: { 'hazelcast.rest.max-buffered-body-bytes': 67108864 } }).warnings).toEqual([]);
  });

  it('rest.http-path is grid (default) or node, any case; anything else is an error', () => {
    expect(tuning({}).restHttpPath).toBe('grid');
    expect(tuning({ 'grid.rest.http-path': 'node' }).restHttpPath).toBe('node');
    expect(tuning({ 'hazelcast.rest.http-path': ' NODE ' }).restHttpPath).toBe('node');
    expect(tuning({ 'grid.rest.http-path': 'Grid' }).restHttpPath).toBe('grid');
    expect(configErrorOf(() => tuning({ 'grid.rest.http-path': 'undici' })).message).toBe(
      'inline: hazelcast.properties.grid.rest.http-path: must be grid or node, got "undici"',
    );
  });

  it('an unknown grid.* property is still reported', () => {
    expect(configFromObject({ properties: { 'grid.operation.call.timeout': 5 } }).warnings).toEqual([
      'inline: hazelcast.properties.grid.operation.call.timeout: unknown Grid property, ignored',
    ]);
  });
});
