import path from 'node:path';
import type { FilesConfig } from '../config.js';
import type { BlobStore } from './blobs.js';
import type { Database } from './db.js';
import { checkFileBucket, checkFileFolder } from './file-folder.js';
import { openLocalBlobStore, type LocalBlobOptions } from './local-blobs.js';
import { openS3BlobStore } from './s3-blobs.js';

/**
 * MinIO/S3 when configured, else a folder under DATA_DIR; either must be where this database's
 * files are (file-folder.ts: several processes on one database share one folder, or one bucket).
 */
export async function openBlobStore(files: Pick<FilesConfig, 's3'>, dataDir: string, db: Database, local: LocalBlobOptions = {}): Promise<BlobStore> {
  if (files.s3) {
    const store = await openS3BlobStore(files.s3);
    await checkFileBucket(db, files.s3.bucket);
    return store;
  }
  const folder = localBlobFolder(dataDir);
  const store = await openLocalBlobStore(folder, local);
  await checkFileFolder(db, folder);
  return store;
}

export const localBlobFolder = (dataDir: string) => path.join(dataDir, 'blobs');
