import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from './db.js';

/**
 * Where a database's files are: every server process on the database must keep them in the same
 * place, or a file stored through one process is missing from the others (a signed link answered
 * 404 by the other process). The database remembers the place (migration `file_folder`): the id
 * of a local folder, or the S3 bucket. A local folder names itself in a file, `.pool-folder-id`.
 * At start:
 * - nothing remembered yet (a new store, or one from before this check): this place is the one;
 * - the place remembered: the same folder (shared or not) or the same bucket;
 * - anything else: another folder, a folder where the files are in S3, S3 where they are in a
 *   folder, another bucket; refused with what to do.
 * S3 is remembered by its bucket alone: processes may reach the same service by different names.
 * A backup or restore carries a folder's id along with the files (it is a file in the folder), and
 * a PostgreSQL dump carries the database's side.
 */
export const FOLDER_ID_FILE = '.pool-folder-id';

export async function checkFileFolder(db: Database, folder: string): Promise<void> {
  const here = await readFolderId(folder);
  const remembered = await rememberedPlace(db);
  if (remembered === null ? await claim(db, here ?? (await writeFolderId(folder, randomUUID()))) : here === remembered) return;
  const instead = here ? `it is folder ${here}` : `it has no ${FOLDER_ID_FILE}`;
  const bucket = bucketOf(remembered);
  throw new Error(
    bucket
      ? mismatchMessage(`in S3, bucket ${bucket}, not in the folder ${folder} (${instead})`, 'If this folder is meant to replace the bucket, copy its files here, then run "delete from file_folder" on the database.')
      : mismatchMessage(`in another folder than ${folder} (${instead})`, `If this folder is meant to replace the old one, move the old folder's files here, its ${FOLDER_ID_FILE} included.`),
  );
}

/** S3's counterpart of checkFileFolder: the files are in this bucket, or nothing is remembered yet. */
export async function checkFileBucket(db: Database, bucket: string): Promise<void> {
  const remembered = await rememberedPlace(db);
  if (remembered === null ? await claim(db, S3_PLACE + bucket) : remembered === S3_PLACE + bucket) return;
  const other = bucketOf(remembered);
  const where = other ? `in S3 bucket ${other}, not in bucket ${bucket}` : `in a local folder (folder ${remembered}), not in S3`;
  throw new Error(mismatchMessage(where, 'If this bucket is meant to replace the old place, copy the old files into it, then run "delete from file_folder" on the database.'));
}

const S3_PLACE = 's3:';
const bucketOf = (place: string | null) => (place?.startsWith(S3_PLACE) ? place.slice(S3_PLACE.length) : null);

/** Remembers `place` unless a place is already remembered (two processes starting together): true when `place` is it. */
async function claim(db: Database, place: string): Promise<boolean> {
  await db.query('insert into file_folder (folder_id) values ($1) on conflict (id) do nothing', [place]);
  return (await rememberedPlace(db)) === place;
}

function mismatchMessage(where: string, replacing: string): string {
  return [
    `The files of this database are kept ${where}.`,
    'Every server process on one database must use the same files: set S3_ENDPOINT (MinIO or S3) and the same S3_BUCKET',
    'everywhere, or give every process the one shared folder (DATA_DIR on a shared mount).',
    replacing,
    'To start over with no files, run "delete from file_folder" on the database.',
  ].join('\n');
}

async function rememberedPlace(db: Database): Promise<string | null> {
  const { rows } = await db.query<{ folder_id: string }>('select folder_id from file_folder');
  return rows[0]?.folder_id ?? null;
}

async function readFolderId(folder: string): Promise<string | null> {
  try {
    return (await readFile(path.join(folder, FOLDER_ID_FILE), 'utf8')).trim() || null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function writeFolderId(folder: string, id: string): Promise<string> {
  // `wx`: a process starting beside this one on the same shared folder may have written it first.
  try {
    await writeFile(path.join(folder, FOLDER_ID_FILE), `${id}\n`, { flag: 'wx' });
    return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFolderId(folder))!;
  }
}
