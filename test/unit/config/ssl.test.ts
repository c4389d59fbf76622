import { describe, expect, it } from 'vitest';
import { configFromObject, parseConfigText, tlsPlan } from '../../../src/config/index.js';
import { configErrorOf } from './helpers.js';

const XML = (ssl: string, extra = ''): string => `<hazelcast><network>${extra}<ssl enabled="true">
  <factory-class-name>com.hazelcast.nio.ssl.BasicSSLContextFactory</factory-class-name>
  <properties>${ssl}</properties></ssl></network></hazelcast>`;
const prop = (name: string, value: string): string => `<property name="${name}">${value}</property>`;

describe('network ssl config', () => {
  it('reads Hazelcast XML with a PKCS12 keystore and truststore, passwords from ${} placeholders', () => {
    const { config } = parseConfigText(
      XML(prop('keyStore', '/k/member.p12') + prop('keyStorePassword', '${KS_PW}') + prop('keyStoreType', 'PKCS12') +
        prop('trustStore', '/k/trust.p12') + prop('trustStorePassword', '${TS_PW}') + prop('protocol', 'TLSv1.3') +
        prop('mutualAuthentication', 'REQUIRED') + prop('ciphersuites', 'TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384')),
      'xml', 'test.xml', { KS_PW: ' sp ace ', TS_PW: 'ts' },
    );
    const ssl = config.network.ssl;
    expect(ssl).toMatchObject({
      path: 'hazelcast.network.ssl',
      key: { kind: 'pkcs12', file: '/k/member.p12', password: ' sp ace ' },
      trust: { kind: 'pkcs12', file: '/k/trust.p12', password: 'ts' },
      protocol: 'TLSv1.3',
      mutualAuthentication: 'REQUIRED',
      ciphersuites: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384'],
    });
    expect(tlsPlan(config.network, config.advancedNetwork)).toEqual({ member: ssl, rest: ssl, wan: ssl });
  });

  it('reads YAML with the PEM files of the OpenSSL factory, the same as XML', () => {
    const yaml = `hazelcast:
  network:
    ssl:
      enabled: true
      factory-class-name: com.hazelcast.nio.ssl.OpenSSLEngineFactory
      properties:
        keyFile: /k/key.pem
        keyPassword: pw
        keyCertChainFile: /k/chain.pem
        trustCertCollectionFile: /k/ca.pem
        mutualAuthentication: optional
`;
    const y = parseConfigText(yaml, 'yaml', 'test.yaml').config.network.ssl;
    const x = parseConfigText(
      `<hazelcast><network><ssl enabled="true"><factory-class-name>com.hazelcast.nio.ssl.OpenSSLEngineFactory</factory-class-name><properties>${
        prop('keyFile', '/k/key.pem') + prop('keyPassword', 'pw') + prop('keyCertChainFile', '/k/chain.pem') + prop('trustCertCollectionFile', '/k/ca.pem') + prop('mutualAuthentication', 'optional')
      }</properties></ssl></network></hazelcast>`, 'xml', 'test.xml').config.network.ssl;
    expect(y).toEqual(x);
    expect(y).toMatchObject({
      key: { kind: 'pem', keyFile: '/k/key.pem', keyPassword: 'pw', certChainFile: '/k/chain.pem' },
      trust: { kind: 'pem', file: '/k/ca.pem' },
      protocol: 'TLS',
      mutualAuthentication: 'OPTIONAL',
    });
  });

  it('is off when absent or enabled="false"', () => {
    expect(configFromObject({}).config.network.ssl).toBeUndefined();
    expect(configFromObject({ network: { ssl: { enabled: false, properties: { keyStore: '/x' } } } }).config.network.ssl).toBeUndefined();
  });

  it('refuses JKS with the keytool command that converts it', () => {
    const e = configErrorOf(() => parseConfigText(XML(prop('keyStore', '/k/member.jks') + prop('keyStoreType', 'JKS')), 'xml', 'test.xml'));
    expect(e.message).toContain('hazelcast.network.ssl.properties.keyStoreType');
    expect(e.message).toContain('keytool -importkeystore -srckeystore /k/member.jks -srcstoretype JKS -destkeystore /k/member.p12 -deststoretype PKCS12');
  });

  it.each(['SSLv3', 'TLSv1', 'TLSv1.1'])('refuses the broken protocol %s', (p) => {
    const e = configErrorOf(() => parseConfigText(XML(prop('keyStore', '/k.p12') + prop('protocol', p)), 'xml', 'test.xml'));
    expect(e.message).toContain(`hazelcast.network.ssl.properties.protocol: ${p} is broken and refused; use TLSv1.2 or TLSv1.3`);
  });

  it('names each mistake with its path', () => {
    const e = configErrorOf(() =>
      configFromObject({
        network: {
          ssl: { enabled: true, properties: { keyFile: '/k.pem', mutualAuthentication: 'ALWAYS', trustStore: '/t.p12', trustCertCollectionFile: '/ca.pem' } },
        },
      }),
    );
    expect(e.problems).toEqual(expect.arrayContaining([
      expect.stringContaining('hazelcast.network.ssl.properties.keyCertChainFile: is required with keyFile'),
      expect.stringContaining('hazelcast.network.ssl.properties.mutualAuthentication: must be REQUIRED or OPTIONAL, got "ALWAYS"'),
      expect.stringContaining('hazelcast.network.ssl.properties.trustStore: set either trustStore (PKCS12) or trustCertCollectionFile (PEM), not both'),
    ]));
  });

  it('needs a key, and warns about unknown properties with a guess', () => {
    const e = configErrorOf(() => configFromObject({ network: { ssl: { enabled: true, properties: { keystore: '/k.p12' } } } }));
    expect(e.message).toContain('hazelcast.network.ssl.properties: ssl is enabled but names no key');
    expect(e.warnings.join('\n')).toContain('hazelcast.network.ssl.properties.keystore: unknown ssl property, ignored (did you mean "keyStore"?)');
  });

  it('never echoes a password', () => {
    const e = configErrorOf(() =>
      configFromObject({ network: { ssl: { enabled: true, properties: { keyStore: '/k.jks', keyStoreType: 'JKS', keyStorePassword: 'hunter2', trustStorePassword: 'hunter3' } } } }),
    );
    expect(e.message + e.warnings.join('')).not.toMatch(/hunter/);
  });

  it('takes each advanced-network endpoint its own ssl; WAN dials use wan-endpoint-config, else the member endpoint', () => {
    const ssl = (file: string): Record<string, unknown> => ({ enabled: true, properties: { keyStore: file } });
    const { config } = configFromObject({
      'advanced-network': {
        enabled: true,
        'member-server-socket-endpoint-config': { ssl: ssl('/member.p12') },
        'rest-server-socket-endpoint-config': { port: { port: 8080 }, ssl: ssl('/rest.p12') },
      },
    });
    const plan = tlsPlan(config.network, config.advancedNetwork);
    expect(plan.member?.key).toMatchObject({ file: '/member.p12' });
    expect(plan.rest?.key).toMatchObject({ file: '/rest.p12' });
    expect(plan.wan).toBe(plan.member);
    expect(plan.rest?.path).toBe('hazelcast.advanced-network.rest-server-socket-endpoint-config.ssl');

    const xml = parseConfigText(`<hazelcast><advanced-network enabled="true">
      <wan-endpoint-config name="tokyo"><ssl enabled="true"><properties>${prop('keyStore', '/wan.p12') + prop('serverName', 'wan.example')}</properties></ssl></wan-endpoint-config>
    </advanced-network></hazelcast>`, 'xml', 'test.xml').config;
    const wan = tlsPlan(xml.network, xml.advancedNetwork).wan;
    expect(wan).toMatchObject({ key: { file: '/wan.p12' }, serverName: 'wan.example', path: 'hazelcast.advanced-network.wan-endpoint-config.tokyo.ssl' });
  });
});
