import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WalSync } from '../server/storage/wal-sync.js';

/**
 * The barrier the embedded store's commits wait on (on real files): commits waiting together share
 * a sync, and a write made while a sync runs is never taken as synced by it.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-wal-sync-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function walFile(name: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, 'wal');
  return file;
}

describe('WalSync', () => {
  it('200 commits waiting at once share syncs instead of each making one', async () => {
    const wal = new WalSync();
    const file = walFile('segment-1');
    const commits = Array.from({ length: 200 }, () => {
      wal.noteWrite(file);
      return wal.barrier();
    });
    await Promise.all(commits);
    expect(wal.pending).toBe(false);
    expect(wal.syncs).toBeLessThanOrEqual(2);
  });

  it('a write noted while a sync runs waits for the next sync', async () => {
    const wal = new WalSync();
    const file = walFile('segment-2');
    wal.noteWrite(file);
    const first = wal.barrier();
    wal.noteWrite(file); // after the first sync took its list of files
    const second = wal.barrier();
    await first;
    await second;
    expect(wal.syncs).toBe(2);
    expect(wal.pending).toBe(false);
  });

  it('nothing written: no sync; a segment recycled since its write: nothing to sync, no error', async () => {
    const wal = new WalSync();
    await wal.barrier();
    expect(wal.syncs).toBe(0);
    wal.noteWrite(path.join(dir, 'removed-segment'));
    await wal.barrier();
    expect(wal.pending).toBe(false);
  });

  it('after a failed sync nothing more is acknowledged', async () => {
    const wal = new WalSync();
    const notAFile = path.join(dir, 'segment-3', 'below-a-file');
    walFile('segment-3');
    wal.noteWrite(notAFile); // opening it fails with ENOTDIR, as an I/O error would
    await expect(wal.barrier()).rejects.toThrow(/restart the server/);
    wal.noteWrite(walFile('segment-4'));
    await expect(wal.barrier()).rejects.toThrow(/restart the server/);
  });
});
