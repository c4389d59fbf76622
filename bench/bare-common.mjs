// What the hand-written baseline servers of the bench share (bare-net-server.mjs,
// bare-net-cluster.mjs, bare-https-server.mjs): reading a request head's Content-Length, and their lifecycle.

/** Content-Length of a request head (latin1 string), 0 when absent. */
export function contentLength(head) {
  const lower = head.toLowerCase();
  const at = lower.indexOf('\r\ncontent-length:');
  if (at === -1) return 0;
  const end = lower.indexOf('\r\n', at + 17);
  return Number(lower.slice(at + 17, end === -1 ? undefined : end).trim()) || 0;
}

/** Exit on SIGTERM/SIGINT (closing `servers` first) and when the bench that started this process is gone. */
export function exitWithParent(servers) {
  const stop = () => {
    for (const s of servers) s.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const parentPid = process.ppid;
  setInterval(() => {
    if (process.ppid !== parentPid) process.exit(0);
  }, 1000).unref();
}
