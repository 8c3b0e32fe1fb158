import fs from 'node:fs';
import path from 'node:path';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { fsyncPathBlocking, WalSync } from './wal-sync.js';

/**
 * PGlite's file system with the syncs PostgreSQL asks for reaching the disk. PGlite runs PostgreSQL
 * over Emscripten's NODEFS, whose streams have no fsync (fsync(2) inside PostgreSQL returns 0 and
 * does nothing; upstream issue electric-sql/pglite#1107), and starts it with `-F` besides. We start
 * without `-F` and give NODEFS's stream operations a sync, from our side, at start:
 *
 * - WAL files (pg_wal/*): each write is noted; PostgreSQL's own fsync of them at commit is left to
 *   `WalSync.barrier()`, which the storage layer awaits after a commit and before answering. It
 *   runs on libuv's thread pool, so the single-threaded WebAssembly PostgreSQL goes on with the next
 *   transaction meanwhile and concurrent commits share one sync (group commit). A blocking fsync
 *   inside PostgreSQL would stop the whole process for each commit, one after another.
 * - Everything else (data files, pg_control, folders): synced for real when PostgreSQL asks (at a
 *   checkpoint, when a segment is created), blocking, after the pending WAL; and before PostgreSQL
 *   writes a page of a non-WAL file the pending WAL is synced too. That keeps PostgreSQL's own rule
 *   (the log reaches the disk before the pages it describes, and before pg_control points at a new
 *   checkpoint, so the WAL a recovery needs is never recycled past pages that are not on disk).
 *   These writes happen at checkpoints and buffer evictions, not on every commit.
 *
 * Not a fork: only the stream operations of this instance's NODEFS are wrapped.
 */
export class SyncingNodeFS extends NodeFS {
  readonly wal = new WalSync();

  override async init(...[pg, opts]: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const patch = (mod: EmscriptenModuleLike) => addSyncs(mod, this.wal);
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), patch as never] } };
  }
}

interface EmscriptenStream {
  nfd?: number;
  node: EmscriptenNode;
}
interface EmscriptenNode {
  name: string;
  parent: EmscriptenNode;
}
interface StreamOps {
  write(stream: EmscriptenStream, ...rest: unknown[]): number;
  fsync?(stream: EmscriptenStream): number;
}
interface EmscriptenModuleLike {
  NODEFS: { stream_ops: StreamOps & { syncing?: true }; realPath(node: EmscriptenNode): string };
}

/** Emscripten's (WASI) errno for an I/O error: PostgreSQL's fsync fails and it stops, as it must. */
const EIO = 29;

function addSyncs(mod: EmscriptenModuleLike, wal: WalSync): void {
  const { NODEFS } = mod;
  const ops = NODEFS.stream_ops;
  // Each PGlite instance has its own module; a second patch would mean two stores share one.
  if (ops.syncing) throw new Error('PGlite file system already patched for syncing');
  ops.syncing = true;
  const write = ops.write.bind(ops);
  ops.write = (stream, ...rest) => {
    if (isWal(stream)) {
      const written = write(stream, ...rest);
      wal.noteWrite(NODEFS.realPath(stream.node));
      return written;
    }
    if (!isScratch(stream)) wal.syncNowBlocking();
    return write(stream, ...rest);
  };
  ops.fsync = (stream) => {
    if (isWal(stream)) return 0; // synced by the barrier after the commit (its writes are noted)
    try {
      wal.syncNowBlocking();
      if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd);
      else fsyncPathBlocking(NODEFS.realPath(stream.node)); // a folder: NODEFS opens no host fd for it
      return 0;
    } catch {
      return EIO;
    }
  };
}

const isWal = (stream: EmscriptenStream) => stream.node.parent?.name === 'pg_wal';
/** Sort and hash spill files: nothing recovery reads, so no reason to sync the log before them. */
const isScratch = (stream: EmscriptenStream) => stream.node.parent?.name === 'pgsql_tmp';

/**
 * Syncs every file and folder under a new store's folder: PGlite writes a fresh store by copying
 * an initdb image through the file system, with no sync PostgreSQL would ask for.
 */
export function syncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) syncTree(full);
    else if (entry.isFile()) fsyncPathBlocking(full);
  }
  fsyncPathBlocking(dir);
}
