// Counting the transactions an SQLite database has committed, from its write-ahead log: the
// group-commit tests (host and state) assert how many commits a batch of writes took.

import { readFileSync } from "node:fs";

/**
 * Transactions committed to the WAL at `walPath` since it was last reset: its frames whose salts
 * match its header's (older frames past them are left over from before a checkpoint) and whose
 * "database size after commit" field is set, which SQLite writes only in a commit's last frame.
 */
export function walCommits(walPath: string): number {
  const wal = readFileSync(walPath);
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let count = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salts[0] || wal.readUInt32BE(at + 12) !== salts[1]) break;
    if (wal.readUInt32BE(at + 4) !== 0) count++;
  }
  return count;
}
