import { Client } from 'minio';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type BlobInfo, type BlobStore } from './blobs.js';

export interface S3Options {
  endPoint: string;
  port?: number;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region?: string;
}

/**
 * Objects in MinIO or any S3-compatible store through the minio client. The bucket is created on
 * open when missing. Sizes are always passed: a single PUT, no multipart (which some S3 servers,
 * s3rver among them, lack).
 */
export async function openS3BlobStore(options: S3Options): Promise<BlobStore> {
  const client = new Client({
    endPoint: options.endPoint,
    port: options.port,
    useSSL: options.useSSL,
    accessKey: options.accessKey,
    secretKey: options.secretKey,
    region: options.region ?? 'us-east-1',
    pathStyle: true,
  });
  const bucket = options.bucket;
  if (!(await client.bucketExists(bucket))) await client.makeBucket(bucket, options.region ?? 'us-east-1');

  const isMissing = (error: unknown) => ['NoSuchKey', 'NotFound', 'NoSuchObject'].includes((error as { code?: string }).code ?? '');

  async function statObject(key: string): Promise<BlobInfo | null> {
    assertSafeKey(key);
    try {
      const info = await client.statObject(bucket, key);
      return { size: info.size, contentType: String(info.metaData['content-type'] ?? 'application/octet-stream') };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  return {
    kind: 's3',

    async put(key, bytes, contentType) {
      assertSafeKey(key);
      await client.putObject(bucket, key, bytes, bytes.length, { 'Content-Type': contentType });
    },

    async putStream(key: string, body: Readable, contentType: string) {
      assertSafeKey(key);
      // Spooled to a temporary file first so the PUT carries a known size without holding the
      // whole object in memory.
      const dir = await mkdtemp(path.join(tmpdir(), 'pool-blob-'));
      const file = path.join(dir, 'object');
      try {
        await pipeline(body, createWriteStream(file));
        const { size } = await stat(file);
        await client.putObject(bucket, key, createReadStream(file), size, { 'Content-Type': contentType });
        return { size, contentType };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async get(key) {
      const info = await statObject(key);
      if (!info) return null;
      return { ...info, body: await client.getObject(bucket, key) };
    },

    stat: statObject,

    async delete(key) {
      assertSafeKey(key);
      await client.removeObject(bucket, key);
    },
  };
}
