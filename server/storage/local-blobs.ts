import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type Blob, type BlobInfo, type BlobStore } from './blobs.js';

/**
 * Objects as files under a folder (DATA_DIR/blobs by default). Each object is written to a
 * temporary file and renamed into place, so a crash mid-write leaves no half object; its content
 * type sits beside it in `<file>.meta.json`.
 */
export async function openLocalBlobStore(root: string): Promise<BlobStore> {
  await mkdir(root, { recursive: true });
  const fileOf = (key: string) => {
    assertSafeKey(key);
    return path.join(root, ...key.split('/'));
  };
  const metaOf = (file: string) => `${file}.meta.json`;

  async function commit(file: string, temp: string, info: BlobInfo): Promise<void> {
    await writeFile(`${temp}.meta`, JSON.stringify(info));
    await rename(`${temp}.meta`, metaOf(file));
    await rename(temp, file);
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
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomUUID()}.tmp`;
      await writeFile(temp, bytes);
      await commit(file, temp, { size: bytes.length, contentType });
    },

    async putStream(key: string, body: Readable, contentType: string) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
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
