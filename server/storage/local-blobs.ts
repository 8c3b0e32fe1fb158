import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type Blob, type BlobInfo, type BlobStore } from './blobs.js';

export interface LocalBlobOptions {
  /** Sync each object (and its folder) to disk before put resolves; off only with UNSAFE_NO_FSYNC. */
  syncToDisk?: boolean | undefined;
}

/**
 * Objects as files under a folder (DATA_DIR/blobs by default). Each object is written to a
 * temporary file, synced, and renamed into place, then its folder is synced: a crash mid-write
 * leaves no half object, and once put resolves (an upload's 201) the object survives a power cut,
 * not only a crash of the process. Its content type sits beside it in `<file>.meta.json`.
 */
export async function openLocalBlobStore(root: string, { syncToDisk = true }: LocalBlobOptions = {}): Promise<BlobStore> {
  await mkdir(root, { recursive: true });
  const sync = syncToDisk ? fsyncPath : async () => {};
  const fileOf = (key: string) => {
    assertSafeKey(key);
    return path.join(root, ...key.split('/'));
  };
  const metaOf = (file: string) => `${file}.meta.json`;

  /** Creates an object's folder; folders it had to create are synced into their parents. */
  async function makeFolder(folder: string): Promise<void> {
    const first = await mkdir(folder, { recursive: true });
    if (!first) return;
    for (let dir = folder; dir !== path.dirname(first); dir = path.dirname(dir)) await sync(path.dirname(dir));
  }

  /** The object's bytes are in `temp`, not yet synced: sync, name, and make the names durable. */
  async function commit(file: string, temp: string, info: BlobInfo): Promise<void> {
    await writeFile(`${temp}.meta`, JSON.stringify(info));
    await sync(`${temp}.meta`);
    await sync(temp);
    await rename(`${temp}.meta`, metaOf(file));
    await rename(temp, file);
    await sync(path.dirname(file));
  }

  async function readInfo(file: string): Promise<BlobInfo | null> {
    try {
      const [meta, stats] = await Promise.all([readFile(metaOf(file), 'utf8'), stat(file)]);
      return { size: stats.size, contentType: (JSON.parse(meta) as BlobInfo).contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  return {
    kind: 'local',

    async put(key, bytes, contentType) {
      const file = fileOf(key);
      await makeFolder(path.dirname(file));
      const temp = `${file}.${randomUUID()}.tmp`;
      await writeFile(temp, bytes);
      await commit(file, temp, { size: bytes.length, contentType });
    },

    async putStream(key: string, body: Readable, contentType: string) {
      const file = fileOf(key);
      await makeFolder(path.dirname(file));
      const temp = `${file}.${randomUUID()}.tmp`;
      try {
        await pipeline(body, createWriteStream(temp));
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      const info = { size: (await stat(temp)).size, contentType };
      await commit(file, temp, info);
      return info;
    },

    async get(key): Promise<Blob | null> {
      const file = fileOf(key);
      const info = await readInfo(file);
      return info && { ...info, body: createReadStream(file) };
    },

    stat: (key) => readInfo(fileOf(key)),

    async delete(key) {
      const file = fileOf(key);
      await rm(file, { force: true });
      await rm(metaOf(file), { force: true });
    },
  };
}

/** fsync(2) of a file or folder by path (a folder's sync makes a rename into it durable). */
async function fsyncPath(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
