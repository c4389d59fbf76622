// The file operations of the member log's write path, behind one seam: production uses
// node:fs; unit tests pass a layer that fails chosen calls (EIO on a write, a failing fsync,
// ENOSPC) to drive the log through every failure without a real broken disk.

import { closeSync, fdatasync, ftruncateSync, openSync, statfs, write } from 'node:fs';

export interface LogFiles {
  /** Open a segment for appending (created when missing). */
  openAppend(path: string): number;
  close(fd: number): void;
  /** Write all of `data` at the end of the file. */
  write(fd: number, data: Buffer): Promise<void>;
  datasync(fd: number): Promise<void>;
  truncate(fd: number, length: number): void;
  /** Bytes free for an unprivileged writer on the file system of `dir`. */
  freeBytes(dir: string): Promise<number>;
}

export const nodeLogFiles: LogFiles = {
  openAppend: (path) => openSync(path, 'a'),
  close: (fd) => closeSync(fd),
  write: (fd, data) =>
    new Promise((resolve, reject) => {
      let off = 0;
      const step = (): void => {
        write(fd, data, off, data.length - off, null, (err, n) => {
          if (err) {
            reject(err);
            return;
          }
          off += n;
          if (off < data.length) step();
          else resolve();
        });
      };
      step();
    }),
  datasync: (fd) =>
    new Promise<void>((resolve, reject) => {
      fdatasync(fd, (err) => (err ? reject(err) : resolve()));
    }),
  truncate: (fd, length) => ftruncateSync(fd, length),
  freeBytes: (dir) =>
    new Promise((resolve, reject) => {
      statfs(dir, (err, s) => (err ? reject(err) : resolve(s.bavail * s.bsize)));
    }),
};
