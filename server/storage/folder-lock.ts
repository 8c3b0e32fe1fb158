import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * An exclusive lock on a data folder, like PostgreSQL's postmaster.pid. PGlite has no lock of its
 * own: two processes opening one folder silently lose commits. The lock file names its holder;
 * a lock left by a process that no longer runs (a crash) is taken over.
 */
export class FolderInUseError extends Error {
  constructor(dir: string, holder: LockHolder) {
    super(
      `The data folder ${dir} is in use by process ${holder.pid} on ${holder.host} ` +
        `(since ${holder.startedAt}). Stop that process, or set DATA_DIR to another folder.`,
    );
    this.name = 'FolderInUseError';
  }
}

interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

const LOCK_FILE = 'server.lock';
/** Folders this process holds, so a second open inside one process is refused too. */
const heldHere = new Set<string>();

export interface FolderLock {
  release(): void;
}

export function lockFolder(dir: string): FolderLock {
  fs.mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  if (!tryCreate(lockPath, me)) {
    const holder = readHolder(lockPath);
    if (holder && isAlive(holder, lockPath)) throw new FolderInUseError(dir, holder);
    fs.rmSync(lockPath, { force: true });
    if (!tryCreate(lockPath, me)) throw new FolderInUseError(dir, readHolder(lockPath) ?? me);
  }
  heldHere.add(lockPath);
  const release = () => releaseLock(lockPath, me);
  process.once('exit', release);
  return {
    release() {
      process.removeListener('exit', release);
      release();
    },
  };
}

/** Atomic create: 'wx' fails when the file exists, so two starters cannot both win. */
function tryCreate(lockPath: string, me: LockHolder): boolean {
  try {
    fs.writeFileSync(lockPath, JSON.stringify(me), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readHolder(lockPath: string): LockHolder | null {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockHolder;
  } catch {
    return null; // unreadable or half-written: treated as stale
  }
}

function isAlive(holder: LockHolder, lockPath: string): boolean {
  if (holder.host !== os.hostname()) return true; // cannot check another machine: assume it runs
  if (holder.pid === process.pid) return heldHere.has(lockPath); // same pid: a previous life?
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseLock(lockPath: string, me: LockHolder): void {
  heldHere.delete(lockPath);
  const holder = readHolder(lockPath);
  if (holder?.pid === me.pid && holder.startedAt === me.startedAt) fs.rmSync(lockPath, { force: true });
}
