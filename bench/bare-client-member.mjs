// The floor of the client bench (bench/client.mjs): a plain `net` process that speaks just
// enough of Hazelcast's client protocol for the official client's map.get and map.set with smart
// routing (authentication, the cluster view with a partition table over the listed processes,
// get and set on an in-memory Map) and nothing else: no cluster, no partitions service, no
// invocation, no heartbeats, no metrics. It decodes and encodes with Grid's own codecs
// (dist/client/) and writes as Grid's ClientConnection does (one write per read, corked when a
// read brought several requests). Started once it is one member; started N times with the same
// --ports it is N members, each owning partitions pid % N === its index. What one and three of
// these cost per get is what Node.js, the kernel and the client's spread over connections cost,
// whatever the member does.
//
//   npm run build && node bench/bare-client-member.mjs --ports 5701,5702,5703 --index 0
import net from 'node:net';
import { parseArgs } from 'node:util';
import { exitWithParent } from './bare-common.mjs';
import { encodeAuthResponse, AuthStatus } from '../dist/client/auth-codec.js';
import { requestHeader, writeUuid } from '../dist/client/codec.js';
import { encodeMembersView, encodePartitionsView } from '../dist/client/cluster-view-codec.js';
import { encodeMessage, FrameReader } from '../dist/client/frame.js';
import { decodeMapRequest } from '../dist/client/map-codecs.js';
import { HAZELCAST_COMPAT_VERSION, MessageId } from '../dist/client/message-ids.js';
import { decodeDataRequest, emptyResponse, nullableDataResponse, uuidResponse } from '../dist/client/request-codecs.js';

const { values } = parseArgs({
  options: { ports: { type: 'string' }, index: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } },
});
const ports = (values.ports ?? '').split(',').map(Number);
const index = Number(values.index);
if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p <= 0) || !Number.isInteger(index) || index < 0 || index >= ports.length) {
  process.stderr.write('usage: node bench/bare-client-member.mjs --ports <p1,p2,...> --index <i>\n');
  process.exit(2);
}
const host = values.host;
const PARTITIONS = 271;
const uuidOf = (i) => `00000000-0000-4000-8000-${String(ports[i]).padStart(12, '0')}`;
const CLUSTER_ID = '00000000-0000-4000-8000-000000000001';
const members = ports.map((port, i) => ({ uuid: uuidOf(i), host, port, liteMember: false, version: HAZELCAST_COMPAT_VERSION }));
const owners = Array.from({ length: PARTITIONS }, (_, pid) => uuidOf(pid % ports.length));
/** map name + key Data (latin1) -> value Data */
const data = new Map();

function answer(h, m, socket) {
  switch (h.type) {
    case MessageId.ClientAuthentication:
      return encodeAuthResponse(h.correlationId, {
        status: AuthStatus.AUTHENTICATED,
        memberUuid: uuidOf(index),
        partitionCount: PARTITIONS,
        clusterId: CLUSTER_ID,
        address: { host, port: ports[index] },
        serverVersion: HAZELCAST_COMPAT_VERSION,
      });
    case MessageId.ClientAddClusterViewListener:
      queueMicrotask(() => {
        socket.write(encodeMessage(encodeMembersView(h.correlationId, 1, members).frames));
        socket.write(encodeMessage(encodePartitionsView(h.correlationId, 1, owners).frames));
      });
      return emptyResponse(h.type, h.correlationId);
    case MessageId.ClientLocalBackupListener:
      return uuidResponse(h.type, h.correlationId, (buf, at) => writeUuid(buf, at, uuidOf(index)));
    case MessageId.MapGet: {
      const r = decodeDataRequest(h.type, m);
      return nullableDataResponse(h.type, h.correlationId, data.get(r.name + r.key.toString('latin1')));
    }
    case MessageId.MapSet: {
      const r = decodeMapRequest(h.type, m);
      data.set(r.name + r.key.toString('latin1'), Buffer.from(r.value));
      return emptyResponse(h.type, h.correlationId);
    }
    default:
      // ping, statistics, proxies: an empty answer is all the client waits for.
      return emptyResponse(h.type, h.correlationId);
  }
}

const server = net.createServer({ noDelay: true }, (socket) => {
  const reader = new FrameReader();
  let started = false;
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk) => {
    let at = 0;
    if (!started) {
      started = true;
      at = 3; // the `CP2` header
    }
    const messages = reader.push(at === 0 ? chunk : chunk.subarray(at));
    const send = (m) => socket.write(encodeMessage(answer(requestHeader(m), m, socket).frames));
    if (messages.length === 1) {
      send(messages[0]);
      return;
    }
    socket.cork();
    for (const m of messages) send(m);
    socket.uncork();
  });
});
server.listen(ports[index], host, () => process.stdout.write(`bare client member ${index} on ${host}:${ports[index]}\n`));
exitWithParent([server]);
