import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleFiles } from './fixtures/files.js';
import { blobKinds, openTestBlobStore, type TestBlobStore } from './support/blob-stores.js';

/** The same blob-store cases on the local folder and on S3 (minio client against s3rver). */
describe.each(blobKinds)('%s blob store', (kind) => {
  let store: TestBlobStore;
  beforeAll(async () => {
    store = await openTestBlobStore(kind);
  });
  afterAll(async () => {
    await store?.close();
  });

  const read = async (key: string) => {
    const blob = await store.blobs.get(key);
    if (!blob) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(Buffer.from(chunk));
    return { ...blob, bytes: Buffer.concat(chunks) };
  };

  it('puts, reads back byte for byte with size and type, replaces, and deletes', async () => {
    const bytes = sampleFiles.jpeg(70_000);
    await store.blobs.put('org/o1/quotes/q1/photos/p1', bytes, 'image/jpeg');
    expect(await store.blobs.stat('org/o1/quotes/q1/photos/p1')).toEqual({ size: 70_000, contentType: 'image/jpeg' });
    const got = await read('org/o1/quotes/q1/photos/p1');
    expect(got?.bytes.equals(bytes)).toBe(true);
    expect(got?.contentType).toBe('image/jpeg');
    const replacement = sampleFiles.png(100);
    await store.blobs.put('org/o1/quotes/q1/photos/p1', replacement, 'image/png');
    expect((await read('org/o1/quotes/q1/photos/p1'))?.bytes.equals(replacement)).toBe(true);
    await store.blobs.delete('org/o1/quotes/q1/photos/p1');
    expect(await store.blobs.stat('org/o1/quotes/q1/photos/p1')).toBeNull();
    expect(await store.blobs.get('org/o1/quotes/q1/photos/p1')).toBeNull();
    await store.blobs.delete('org/o1/quotes/q1/photos/p1');
  });

  it('streams a large object in without holding it whole, and reads it back', async () => {
    const parts = Array.from({ length: 40 }, (_, i) => Buffer.from(`line ${i},${'x'.repeat(50_000)}\n`));
    const info = await store.blobs.putStream('org/o1/exports/big.csv', Readable.from(parts), 'text/csv');
    expect(info).toEqual({ size: parts.reduce((n, p) => n + p.length, 0), contentType: 'text/csv' });
    expect((await read('org/o1/exports/big.csv'))?.bytes.equals(Buffer.concat(parts))).toBe(true);
  });

  it('a failed stream stores nothing', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1000));
        this.destroy(new Error('connection lost'));
      },
    });
    await expect(store.blobs.putStream('org/o1/exports/broken.csv', failing, 'text/csv')).rejects.toThrow();
    expect(await store.blobs.stat('org/o1/exports/broken.csv')).toBeNull();
    expect(await store.keys('org/o1/exports/broken')).toEqual([]);
  });

  it('refuses keys outside an organization folder or with path tricks', async () => {
    for (const key of ['../etc/passwd', 'org/o1/../../x', 'org/o1/./x', 'other/o1/x', 'org/o 1/x', '/org/o1/x']) {
      await expect(store.blobs.put(key, Buffer.from('x'), 'text/plain')).rejects.toThrow(/Unsafe object key/);
    }
  });
});
