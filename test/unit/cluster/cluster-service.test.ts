// The ClusterService facade wired to its concern modules, for a member without a network (a
// cluster of one): what it reports before and after forming, state changes, shutdown requests
// and its events. Multi-member behaviour is tested end to end in test/cluster/.

import { describe, expect, it } from 'vitest';
import { ClusterService } from '../../../src/cluster/cluster-service.js';
import type { ClusterEvent, MemberInfo } from '../../../src/cluster/types.js';
import { systemClock } from '../../../src/core/clock.js';
import { isGridError } from '../../../src/core/errors.js';
import { createLogControl } from '../../../src/core/logger.js';

const LOCAL: MemberInfo = { uuid: 'u-local', address: '127.0.0.1:5701', host: '127.0.0.1', port: 5701, liteMember: false, version: '5.3.2' };

function service(): { cluster: ClusterService; events: ClusterEvent[] } {
  const cluster = new ClusterService({
    clusterName: 'dev',
    local: LOCAL,
    tcpIpMembers: ['127.0.0.1:5701'],
    joinAddresses: () => ['127.0.0.1:5701'],
    net: undefined,
    clock: systemClock,
    logger: createLogControl({ level: 'OFF' }).logger,
    tuning: { heartbeatIntervalMs: 1000, maxNoHeartbeatMs: 60_000, connectionMonitorMaxFaults: 3, connectionMonitorIntervalMs: 1000, maxJoinMs: 5000, callTimeoutMs: 5000 },
  });
  const events: ClusterEvent[] = [];
  cluster.on((e) => events.push(e));
  return { cluster, events };
}

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return isGridError(e) ? e.code : 'not a GridError';
  }
  return undefined;
}

describe('ClusterService without a network', () => {
  it('is a member of no cluster before join, the master of a cluster of one after', async () => {
    const { cluster, events } = service();
    expect(cluster.joined()).toBe(false);
    expect(cluster.nodeState()).toBe('STARTING');
    expect(cluster.isMaster()).toBe(false);
    expect(cluster.memberListVersion()).toBe(0);
    expect(cluster.members()).toEqual([LOCAL]);
    expect(await codeOf(() => cluster.requestShutdown('cluster'))).toBe('CONFLICT');

    await cluster.join();
    expect(cluster.joined()).toBe(true);
    expect(cluster.isMaster()).toBe(true);
    expect(cluster.nodeState()).toBe('ACTIVE');
    expect(cluster.memberListVersion()).toBe(1);
    expect(cluster.master()).toEqual(LOCAL);
    expect(cluster.memberByUuid('u-local')).toEqual(LOCAL);
    expect(cluster.memberByUuid('u-other')).toBeUndefined();
    expect(cluster.isAlive('u-local')).toBe(true);
    expect(cluster.isAlive('u-other')).toBe(false);
    expect(cluster.version()).toBe('5.3');
    expect(cluster.fenced()).toBe(false);
    expect(await cluster.stillMember()).toBe(true);
    expect(cluster.wasRemoved()).toBe(false);
    expect(events).toEqual([{ type: 'membersChanged', added: [LOCAL], removed: [], masterChanged: true }]);
    cluster.markShutDown();
  });

  it('takes the identity bound later, in the member list too', async () => {
    const { cluster } = service();
    const bound: MemberInfo = { ...LOCAL, address: '127.0.0.1:5702', port: 5702 };
    cluster.setLocal(bound);
    expect(cluster.localMember()).toEqual(bound);
    expect(cluster.members()).toEqual([bound]);
    await cluster.join();
    expect(cluster.master()).toEqual(bound);
    cluster.markShutDown();
  });

  it('changes the cluster state once, emits the change, and shows PASSIVE as the node state', async () => {
    const { cluster, events } = service();
    await cluster.join();
    events.length = 0;
    expect(await cluster.changeState('FROZEN')).toBe(true);
    expect(await cluster.changeState('FROZEN')).toBe(false);
    expect(cluster.state()).toBe('FROZEN');
    expect(await codeOf(cluster.changeState('IN_TRANSITION'))).toBe('BAD_REQUEST');
    expect(await cluster.changeState('PASSIVE')).toBe(true);
    expect(cluster.committedState()).toBe('PASSIVE');
    expect(cluster.nodeState()).toBe('PASSIVE');
    expect(events).toEqual([
      { type: 'stateChanged', from: 'ACTIVE', to: 'FROZEN' },
      { type: 'stateChanged', from: 'FROZEN', to: 'PASSIVE' },
    ]);
    cluster.markShuttingDown();
    expect(cluster.isShuttingDown()).toBe(true);
    expect(await codeOf(cluster.changeState('ACTIVE'))).toBe('MEMBER_SHUTTING_DOWN');
    cluster.markShutDown();
    expect(cluster.nodeState()).toBe('SHUT_DOWN');
  });

  it('asks for its own shutdown, or the cluster’s after making it PASSIVE', async () => {
    const { cluster, events } = service();
    await cluster.join();
    events.length = 0;
    cluster.requestShutdown('member');
    expect(events).toEqual([{ type: 'shutdownRequested', scope: 'member' }]);
    events.length = 0;
    const asked = new Promise<void>((resolve) => cluster.on((e) => e.type === 'shutdownRequested' && resolve()));
    cluster.requestShutdown('cluster');
    await asked;
    expect(events).toEqual([
      { type: 'stateChanged', from: 'ACTIVE', to: 'PASSIVE' },
      { type: 'shutdownRequested', scope: 'cluster' },
    ]);
    // Alone, it has nobody to hand anything to.
    await cluster.leave();
    cluster.markShutDown();
  });

  it('keeps the tcp-ip member list the REST layer sets', () => {
    const { cluster } = service();
    expect(cluster.tcpIpMemberList()).toEqual(['127.0.0.1:5701']);
    cluster.setTcpIpMemberList(['10.0.0.1:5701', '10.0.0.2:5701']);
    expect(cluster.tcpIpMemberList()).toEqual(['10.0.0.1:5701', '10.0.0.2:5701']);
  });

  it('a listener that throws does not stop membership', async () => {
    const { cluster, events } = service();
    cluster.on(() => {
      throw new Error('listener failed');
    });
    await cluster.join();
    expect(cluster.joined()).toBe(true);
    expect(events).toHaveLength(1);
    cluster.markShutDown();
  });
});
