import { describe, expect, it } from 'vitest';
import { configFromObject, listenPlan } from '../../../src/config/index.js';

describe('listenPlan', () => {
  it('serves REST on the member port from network/rest-api', () => {
    const plan = listenPlan(
      configFromObject({ network: { port: { port: 5801 }, 'rest-api': { enabled: true, 'endpoint-groups': { DATA: { enabled: true } } } } }).config,
    );
    expect(plan.memberPort.port).toBe(5801);
    expect(plan.restPort).toBeUndefined();
    expect([...plan.restGroups].sort()).toEqual(['CLUSTER_READ', 'DATA', 'HEALTH_CHECK']);
  });

  it('has no groups when REST is off', () => {
    expect(listenPlan(configFromObject({}).config).restGroups.size).toBe(0);
  });

  it('gives REST its own port under advanced network', () => {
    const plan = listenPlan(
      configFromObject({
        'advanced-network': {
          enabled: true,
          'member-server-socket-endpoint-config': { port: { port: 5901 } },
          'rest-server-socket-endpoint-config': { port: { port: 8181 }, 'endpoint-groups': { DATA: { enabled: true } } },
        },
      }).config,
    );
    expect(plan.memberPort.port).toBe(5901);
    expect(plan.restPort?.port).toBe(8181);
    expect(plan.restGroups.has('DATA')).toBe(true);
  });
});
