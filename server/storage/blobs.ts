import type { Readable } from 'node:stream';

/**
 * Object storage for photos, PDFs, logos and export files: MinIO/S3 in production, a local folder
 * by default. Keys are namespaced by organization (`org/<orgId>/...`) by the callers and never
 * contain a client's file name.
 *
 * @example
 *   await blobs.put('org/o1/quotes/q1/pdf', bytes, 'application/pdf')
 *   const found = await blobs.get('org/o1/quotes/q1/pdf')   // { body, size, contentType } | null
 */
export interface BlobInfo {
  size: number;
  contentType: string;
}

export interface Blob extends BlobInfo {
  body: Readable;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Stores bytes under a key, replacing what was there; visible only once complete. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Streams a large object of known size in (exports); visible only once complete. */
  putStream(key: string, body: Readable, contentType: string): Promise<BlobInfo>;
  get(key: string): Promise<Blob | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Removes an object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
}

/** Keys are built from our own ids; anything else is a programming error, refused loudly. */
export function assertSafeKey(key: string): void {
  if (!/^org\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)+$/.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`Unsafe object key: ${key}`);
  }
}
