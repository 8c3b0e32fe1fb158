import fs from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Which write-ahead-log files the embedded store has written since they were last synced, and the
 * barrier that syncs them before a write is acknowledged (group commit: every committer waiting
 * while one sync runs shares the next one, so 200 devices pushing at once wait for two syncs, not
 * for 200). See pglite-fs-sync.ts for where the writes are seen.
 */
export class WalSync {
  private written = 0;
  private synced = 0;
  private readonly dirty = new Set<string>();
  private running: Promise<void> | null = null;
  private failure: Error | null = null;
  /** Syncs run so far (each of every file then dirty): fewer than commits when commits share them. */
  syncs = 0;

  /** A write(2) reached this WAL file (its path on the host). */
  noteWrite(file: string): void {
    this.dirty.add(file);
    this.written++;
  }

  get pending(): boolean {
    return this.synced < this.written;
  }

  /** Resolves once every WAL write made before the call is on disk; rejects when a sync failed. */
  async barrier(): Promise<void> {
    const target = this.written;
    while (this.synced < target) {
      this.throwIfFailed();
      // A sync already running may have started before our commit's write: wait, then sync again.
      this.running ??= this.syncDirty().finally(() => (this.running = null));
      await this.running;
    }
    this.throwIfFailed();
  }

  /**
   * Syncs the WAL now, blocking: PostgreSQL is about to write or sync a file that is not WAL (a data
   * page, pg_control at a checkpoint), and the WAL describing it must be on disk first, as it would
   * be were PostgreSQL syncing its WAL itself.
   */
  syncNowBlocking(): void {
    if (!this.pending) return;
    const upTo = this.written;
    const files = this.takeDirty();
    this.syncs++;
    try {
      for (const file of files) fsyncPathBlocking(file);
    } catch (error) {
      throw this.fail(error);
    }
    this.synced = Math.max(this.synced, upTo);
  }

  private async syncDirty(): Promise<void> {
    const upTo = this.written;
    const files = this.takeDirty();
    this.syncs++;
    try {
      await Promise.all(files.map(fsyncPath));
    } catch (error) {
      throw this.fail(error);
    }
    this.synced = Math.max(this.synced, upTo);
  }

  private takeDirty(): string[] {
    const files = [...this.dirty];
    this.dirty.clear();
    return files;
  }

  /**
   * After a failed fsync the kernel may have dropped the unwritten pages and a retry would report
   * success for data that is gone (PostgreSQL panics for this reason): nothing more is acknowledged.
   */
  private fail(error: unknown): Error {
    this.failure ??= new Error(`syncing the embedded store's log to disk failed; restart the server: ${(error as Error).message}`);
    return this.failure;
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}

/** A WAL segment renamed or removed since its write was seen was recycled after a checkpoint: nothing to sync. */
const gone = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

async function fsyncPath(file: string): Promise<void> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if (gone(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Syncs a file or folder by its path (a folder's sync makes the names created in it durable). */
export function fsyncPathBlocking(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (gone(error)) return;
    throw error;
  }
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
