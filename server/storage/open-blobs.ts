import path from 'node:path';
import type { FilesConfig } from '../config.js';
import type { BlobStore } from './blobs.js';
import { openLocalBlobStore } from './local-blobs.js';
import { openS3BlobStore } from './s3-blobs.js';

/** MinIO/S3 when configured, else a folder beside the embedded database. */
export function openBlobStore(files: Pick<FilesConfig, 's3'>, dataDir: string): Promise<BlobStore> {
  return files.s3 ? openS3BlobStore(files.s3) : openLocalBlobStore(path.join(dataDir, 'blobs'));
}
