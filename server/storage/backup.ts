import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import * as tar from 'tar';
import { lockFolder } from './folder-lock.js';

/**
 * Backup and restore of the embedded store: the data folder (PGlite's database and the blobs
 * folder beside it) as one gzipped tar with a manifest.
 *
 * A copy of a PostgreSQL data folder is consistent when no server has it open, so both commands
 * take the folder's lock first: with the server running they stop with a message saying so. The
 * database is opened and closed once before the copy, which replays the write-ahead log if the
 * last owner crashed, so the archive holds a cleanly shut down database. The archive streams from
 * and to disk; a large store is never held in memory.
 */
const MANIFEST = 'pool-backup.json';
const LOCK_FILE = 'server.lock';
const FORMAT = 1;

export interface BackupManifest {
  format: number;
  engine: 'pglite';
  createdAt: string;
  /** The newest migration the database had; a restore into an older server is refused by it at start. */
  schemaVersion: number;
}

export class BackupError extends Error {
  override name = 'BackupError';
}

export async function backupEmbeddedStore(dataDir: string, outFile: string): Promise<BackupManifest> {
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) throw new BackupError(`${dataDir} holds no embedded store`);
  const lock = lockFolder(dataDir);
  const manifestPath = path.join(dataDir, MANIFEST);
  try {
    const manifest: BackupManifest = { format: FORMAT, engine: 'pglite', createdAt: new Date().toISOString(), schemaVersion: await closeCleanly(dataDir) };
    fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    const partial = `${outFile}.partial`;
    await tar.create({ gzip: true, file: partial, cwd: dataDir, portable: true, filter: (p) => !isLockFile(p) }, fs.readdirSync(dataDir));
    fs.renameSync(partial, outFile); // a half-written backup never carries the final name
    return manifest;
  } finally {
    fs.rmSync(manifestPath, { force: true });
    lock.release();
  }
}

/**
 * Replaces the store in dataDir with the backup's. The replaced folder is kept beside it (its path
 * is returned), so a restore of the wrong file loses nothing.
 */
export async function restoreEmbeddedStore(dataDir: string, fromFile: string): Promise<{ manifest: BackupManifest; replaced: string | null }> {
  if (!fs.existsSync(fromFile)) throw new BackupError(`No backup at ${fromFile}`);
  const lock = lockFolder(dataDir);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const staging = `${dataDir}.restoring-${stamp}`;
  try {
    fs.mkdirSync(staging, { recursive: true });
    await tar.extract({ file: fromFile, cwd: staging, strict: true });
    const manifest = readManifest(staging);
    fs.rmSync(path.join(staging, MANIFEST));
    await closeCleanly(staging); // proves the database opens before anything is replaced
    const replaced = `${dataDir}.before-restore-${stamp}`;
    fs.renameSync(dataDir, replaced);
    fs.rmSync(path.join(replaced, LOCK_FILE), { force: true });
    fs.renameSync(staging, dataDir);
    return { manifest, replaced };
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    lock.release();
  }
}

/** Opens and closes the database (recovering it if needed); returns its schema version. */
async function closeCleanly(dir: string): Promise<number> {
  const pg = await PGlite.create(dir, { extensions: { pg_trgm } });
  try {
    const { rows } = await pg.query<{ version: number | null }>('select max(version)::int as version from schema_migrations');
    return rows[0]?.version ?? 0;
  } finally {
    await pg.close();
  }
}

function readManifest(dir: string): BackupManifest {
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as Partial<BackupManifest>;
  } catch {
    throw new BackupError('This file is not a backup made by `npm run admin -- backup` (no manifest)');
  }
  if (manifest.format !== FORMAT || manifest.engine !== 'pglite') throw new BackupError(`Unsupported backup format ${String(manifest.format)}`);
  return manifest as BackupManifest;
}

function isLockFile(entry: string): boolean {
  return entry === LOCK_FILE || entry === `./${LOCK_FILE}`;
}
