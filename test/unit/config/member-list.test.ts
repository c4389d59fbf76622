import { describe, expect, it } from 'vitest';
import { expandMemberList, type MemberAddress } from '../../../src/config/index.js';
import { GridError } from '../../../src/core/errors.js';

const hp = (list: readonly MemberAddress[]): string[] => list.map((a) => `${a.host}|${a.port}`);
const expand = (entries: string[], port = 5701, tries = 3): string[] => hp(expandMemberList(entries, port, tries));

/** The message of the GridError('CONFIG_INVALID') thrown for `entries`. */
function errorOf(entries: string[]): string {
  try {
    expandMemberList(entries, 5701, 3);
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    expect((e as GridError).code).toBe('CONFIG_INVALID');
    return (e as GridError).message;
  }
  throw new Error(`expected ${JSON.stringify(entries)} to be rejected`);
}

describe('expandMemberList', () => {
  it('a host alone tries port-try-count ports from the member port up', () => {
    expect(expand(['10.0.0.1'])).toEqual(['10.0.0.1|5701', '10.0.0.1|5702', '10.0.0.1|5703']);
    expect(expand(['h'], 6000, 1)).toEqual(['h|6000']);
    expect(expand(['h'], 65534, 3)).toEqual(['h|65534', 'h|65535']); // never past 65535
    expect(expand(['h'], 5701, 0)).toEqual(['h|5701']); // at least one
  });

  it('host:port and host:p1-p2 (inclusive) ignore the try count', () => {
    expect(expand(['h:5801'])).toEqual(['h|5801']);
    expect(expand(['h:5801-5804'], 5701, 1)).toEqual(['h|5801', 'h|5802', 'h|5803', 'h|5804']);
    expect(expand(['h:5801-5801'])).toEqual(['h|5801']);
    expect(expand(['h:65535'])).toEqual(['h|65535']);
  });

  it('IPv6: bracketed with or without a port, bare without one; hosts come without brackets', () => {
    expect(expand(['[::1]'], 5701, 2)).toEqual(['::1|5701', '::1|5702']);
    expect(expand(['[fe80::1%eth0]:5705'])).toEqual(['fe80::1%eth0|5705']);
    expect(expand(['[2001:db8::7]:5701-5702'])).toEqual(['2001:db8::7|5701', '2001:db8::7|5702']);
    expect(expand(['::1'], 5701, 1)).toEqual(['::1|5701']);
  });

  it('IPv4 last-octet ranges, alone or with a port or port range', () => {
    expect(expand(['10.0.0.1-3'], 5701, 1)).toEqual(['10.0.0.1|5701', '10.0.0.2|5701', '10.0.0.3|5701']);
    expect(expand(['10.0.0.1-2:5801'])).toEqual(['10.0.0.1|5801', '10.0.0.2|5801']);
    expect(expand(['10.0.0.1-2:5801-5802'])).toEqual(['10.0.0.1|5801', '10.0.0.1|5802', '10.0.0.2|5801', '10.0.0.2|5802']);
    expect(expand(['10.0.0.4-4'], 5701, 1)).toEqual(['10.0.0.4|5701']);
    const star = expandMemberList(['192.168.1.*:5701'], 5701, 3);
    expect(star).toHaveLength(256);
    expect(star[0]).toEqual({ host: '192.168.1.0', port: 5701 });
    expect(star[255]).toEqual({ host: '192.168.1.255', port: 5701 });
  });

  it('keeps entry order and drops duplicates', () => {
    expect(expand(['b:2', 'a:1', 'b:2', 'a:1-2', 'a'], 1, 2)).toEqual(['b|2', 'a|1', 'a|2']);
    expect(expand(['10.0.0.2', '10.0.0.1-3'], 5701, 1)).toEqual(['10.0.0.2|5701', '10.0.0.1|5701', '10.0.0.3|5701']);
  });

  it('splits elements at commas, semicolons and spaces, as Hazelcast does', () => {
    expect(expand(['127.0.0.1, 127.0.0.2', 'a;b:7', ' c\t'], 5701, 1)).toEqual([
      '127.0.0.1|5701',
      '127.0.0.2|5701',
      'a|5701',
      'b|7',
      'c|5701',
    ]);
    expect(expand([], 5701, 3)).toEqual([]);
    expect(expand([' , '], 5701, 3)).toEqual([]);
  });

  it('rejects malformed entries, naming them', () => {
    expect(errorOf(['h:0'])).toBe('port must be 1-65535: "h:0"');
    expect(errorOf(['h:65536'])).toBe('port must be 1-65535: "h:65536"');
    expect(errorOf(['ok', 'h:x'])).toBe('not a host, host:port or host:port1-port2: "h:x"');
    expect(errorOf(['h:'])).toBe('not a host, host:port or host:port1-port2: "h:"');
    expect(errorOf(['h:5702-5701'])).toBe('port range is reversed (5702 > 5701): "h:5702-5701"');
    expect(errorOf(['h:65530-65540'])).toBe('port range goes past 65535: "h:65530-65540"');
    expect(errorOf(['256.0.0.1'])).toBe('an IPv4 octet is over 255: "256.0.0.1"');
    expect(errorOf(['10.0.0.250-256'])).toBe('an IPv4 octet is over 255: "10.0.0.250-256"');
    expect(errorOf(['10.0.0.5-3'])).toBe('address range is reversed (5 > 3): "10.0.0.5-3"');
    expect(errorOf(['10.0-2.0.1'])).toBe('only the last octet of an IPv4 address may be a range: "10.0-2.0.1"');
    expect(errorOf(['10.0.0'])).toBe('not a host, host:port or host:port1-port2: "10.0.0"');
    expect(errorOf(['[zz]'])).toBe('not an IPv6 address in brackets: "[zz]"');
    expect(errorOf(['[::1'])).toBe('not a host, host:port or host:port1-port2: "[::1"');
    expect(errorOf(['[::1]5701'])).toBe('not a host, host:port or host:port1-port2: "[::1]5701"');
    expect(errorOf(['1:2:zz'])).toBe('not a host, host:port or host:port1-port2: "1:2:zz"');
    expect(errorOf(['bad_host!'])).toBe('not a host, host:port or host:port1-port2: "bad_host!"');
    expect(errorOf(['-h'])).toBe('not a host, host:port or host:port1-port2: "-h"');
  });
});
