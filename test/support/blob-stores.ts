import { readdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'minio';
import S3rver from 's3rver';
import type { BlobStore } from '../../server/storage/blobs.js';
import { openLocalBlobStore } from '../../server/storage/local-blobs.js';
import { openS3BlobStore } from '../../server/storage/s3-blobs.js';

/**
 * The two blob stores the file tests run on: a local folder, and the S3 path through the minio
 * client against s3rver, a real S3-protocol server started here (it checks no signatures, so
 * nothing here relies on S3 auth). `keys()` lists what is stored, to prove nothing was left over.
 */
export type BlobKind = 'local' | 's3';
export const blobKinds: BlobKind[] = ['local', 's3'];

export interface TestBlobStore {
  blobs: BlobStore;
  keys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function openTestBlobStore(kind: BlobKind): Promise<TestBlobStore> {
  const folder = await mkdtemp(path.join(tmpdir(), `pool-${kind}-`));
  if (kind === 'local') {
    const blobs = await openLocalBlobStore(folder);
    return {
      blobs,
      keys: async (prefix = '') => (await listFiles(folder)).filter((k) => !k.endsWith('.meta.json') && k.startsWith(prefix)),
      close: () => rm(folder, { recursive: true, force: true }),
    };
  }
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: folder });
  const { port } = await server.run();
  const options = { endPoint: '127.0.0.1', port, useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket: 'pool-test' };
  const blobs = await openS3BlobStore(options);
  const client = new Client({ ...options, region: 'us-east-1', pathStyle: true });
  return {
    blobs,
    keys: async (prefix = '') => {
      const found: string[] = [];
      for await (const item of client.listObjectsV2(options.bucket, prefix, true)) {
        if ((item as { name?: string }).name) found.push((item as { name: string }).name);
      }
      return found;
    },
    close: async () => {
      await server.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? listFiles(root, path.join(dir, e.name)) : [path.relative(root, path.join(dir, e.name)).split(path.sep).join('/')])),
  );
  return nested.flat();
}
