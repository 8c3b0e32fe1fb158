import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import S3rver from 's3rver';
import { checkFileFolder, FOLDER_ID_FILE } from '../server/storage/file-folder.js';
import { openBlobStore } from '../server/storage/open-blobs.js';
import { sampleFiles, uploadFile, fetchBytes } from './fixtures/files.js';
import { caller, ok } from './support/api.js';
import { finished, spawnTs, waitForOutput } from './support/child.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * Files kept in a folder (no S3) are in one folder per database: a server process whose folder is
 * not that one refuses to start, saying what several processes need (one shared folder, or S3).
 */
describe.each(engines)('the files folder on %s', (engine) => {
  let store: TestStore;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-folders-'));
  const folder = (name: string) => fs.mkdirSync(path.join(tmp, name, 'blobs'), { recursive: true }) ?? path.join(tmp, name, 'blobs');

  beforeAll(async () => {
    store = await openTestStore(engine);
  });
  afterAll(async () => {
    await store?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("a database's files are in one folder: that folder is accepted again, any other refused with what to do", async () => {
    const first = folder('first');
    await checkFileFolder(store.db, first);
    await checkFileFolder(store.db, first);
    const empty = folder('second');
    await expect(checkFileFolder(store.db, empty)).rejects.toThrow(/another folder than .*second.*S3_ENDPOINT.*shared folder/s);
    const foreign = folder('third');
    fs.writeFileSync(path.join(foreign, FOLDER_ID_FILE), 'some-other-folder\n');
    await expect(checkFileFolder(store.db, foreign)).rejects.toThrow(/it is folder some-other-folder/);
    // The old folder's files moved here, its id included: the same folder.
    const moved = folder('moved');
    fs.copyFileSync(path.join(first, FOLDER_ID_FILE), path.join(moved, FOLDER_ID_FILE));
    await checkFileFolder(store.db, moved);
  });

  it('files in S3 are remembered by their bucket: another bucket, a folder beside it, or S3 beside a folder is refused', async () => {
    await store.db.query('delete from file_folder'); // the folders of the test above: this is a new deployment
    const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: fs.mkdtempSync(path.join(tmp, 's3-')) });
    const { port } = await s3.run();
    const inBucket = (bucket: string) => ({ s3: { endPoint: '127.0.0.1', port, useSSL: false, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket, region: 'us-east-1' } });
    const dataDir = (name: string) => path.join(tmp, name);
    try {
      await openBlobStore(inBucket('pool-files'), dataDir('unused'), store.db);
      await openBlobStore(inBucket('pool-files'), dataDir('unused'), store.db);
      await expect(openBlobStore(inBucket('other-files'), dataDir('unused'), store.db)).rejects.toThrow(/kept in S3 bucket pool-files, not in bucket other-files.*S3_BUCKET/s);
      // A process without S3 beside processes with it: its folder would hold none of their files.
      await expect(openBlobStore({ s3: undefined }, dataDir('beside'), store.db)).rejects.toThrow(/kept in S3, bucket pool-files, not in the folder .*beside\/blobs/);
      // And the other way round: S3 where the files are in a folder.
      await store.db.query('delete from file_folder');
      await openBlobStore({ s3: undefined }, dataDir('local'), store.db);
      await expect(openBlobStore(inBucket('pool-files'), dataDir('unused'), store.db)).rejects.toThrow(/kept in a local folder .*not in S3.*delete from file_folder/s);
    } finally {
      await s3.close();
    }
  });

  // Two real server processes on one PostgreSQL (the embedded store has one process by design).
  it.runIf(engine === 'postgres')('two processes with a folder each: the second refuses to start; sharing one, each serves the other\'s files', { timeout: 120_000 }, async () => {
    const { token } = await provisionOrganization(store.db, { name: 'Two Process Pools' });
    await store.db.query('delete from file_folder'); // the folders of the test above: this is a new deployment
    const env = (dataDir: string) => ({ DATABASE_URL: store.url!, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SEED_DEMO_ORG: 'false', BULK_WORKER: 'false' });
    const start = async (dataDir: string) => {
      const child = spawnTs('server/main.ts', [], env(dataDir));
      const done = finished(child);
      const out = await waitForOutput(child, /listening on (http:\/\/\S+)/);
      return { child, done, url: /listening on (http:\/\/\S+)/.exec(out)![1]! };
    };
    const shared = path.join(tmp, 'shared');
    const a = await start(shared);
    try {
      const alone = await finished(spawnTs('server/main.ts', [], env(path.join(tmp, 'own'))));
      expect(alone.code).toBe(1);
      expect(alone.stderr).toMatch(/another folder than .*own\/blobs/);
      expect(alone.stderr).toMatch(/S3_ENDPOINT/);
      const b = await start(shared);
      try {
        const visit = ok(await caller({ url: a.url }, token)(`mutation { createService(input: {notes: "two processes"}) { id } }`)).createService.id;
        const photo = await uploadFile(`${a.url}/services/${visit}/photos`, token, sampleFiles.jpeg());
        expect(photo.status).toBe(201);
        // The link signed by the first process, served by the second.
        const link = new URL(photo.body.url);
        expect((await fetchBytes(`${b.url}${link.pathname}${link.search}`)).status).toBe(200);
      } finally {
        b.child.kill('SIGTERM');
        await b.done;
      }
    } finally {
      a.child.kill('SIGTERM');
      await a.done;
    }
  });
});
