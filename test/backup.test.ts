import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import type { Database } from '../server/storage/db.js';
import { openLocalBlobStore } from '../server/storage/local-blobs.js';
import { openStore } from '../server/storage/open.js';
import { runTs } from './support/child.js';

/**
 * `npm run admin -- backup / restore` on the embedded store, run as an operator runs them: back
 * up, write more (rows and files), restore, and find exactly the backed-up state.
 */
describe('backup and restore of the embedded store', () => {
  let root: string;
  let dataDir: string;
  let orgId: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'pool-backup-'));
    dataDir = path.join(root, 'data');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const admin = (...args: string[]) => runTs('server/admin-cli.ts', args, { DATA_DIR: dataDir, DATABASE_URL: '' });

  async function withStore<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const db = await openStore({ dataDir });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  const customerNames = (db: Database) =>
    db.query<{ last_name: string }>('select last_name from customers where org_id = $1 order by last_name', [orgId]).then((r) => r.rows.map((c) => c.last_name));

  it('restores exactly the backed-up rows and files, keeping the replaced store aside', async () => {
    const blobs = await openLocalBlobStore(path.join(dataDir, 'blobs'));
    await withStore(async (db) => {
      orgId = (await provisionOrganization(db, { name: 'Backed Up Pools' })).organization.id;
      await db.query(`insert into customers (org_id, id, last_name) values ($1, 'c1', 'Before')`, [orgId]);
    });
    await blobs.put(`org/${orgId}/photos/before.jpg`, Buffer.from('photo taken before the backup'), 'image/jpeg');

    const backup = path.join(root, 'pool-backup.tar.gz');
    const made = await admin('backup', '--out', backup);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(backup);

    // Work goes on after the backup: a row, a file, and a change to the earlier file.
    await withStore((db) => db.query(`insert into customers (org_id, id, last_name) values ($1, 'c2', 'After')`, [orgId]));
    await blobs.put(`org/${orgId}/photos/after.jpg`, Buffer.from('photo taken after'), 'image/jpeg');
    await blobs.put(`org/${orgId}/photos/before.jpg`, Buffer.from('overwritten after the backup'), 'image/jpeg');

    const restored = await admin('restore', '--from', backup);
    expect(restored.code).toBe(0);
    const replaced = /kept in (\S+);/.exec(restored.stdout)?.[1];
    expect(replaced && fs.existsSync(replaced)).toBe(true);

    expect(await withStore(customerNames)).toEqual(['Before']);
    const after = await openLocalBlobStore(path.join(dataDir, 'blobs'));
    const before = await after.get(`org/${orgId}/photos/before.jpg`);
    expect(before && (await streamText(before.body))).toBe('photo taken before the backup');
    expect(await after.get(`org/${orgId}/photos/after.jpg`)).toBeNull();
    // Nothing is lost by restoring: the replaced store still has the later work.
    expect(fs.readFileSync(path.join(replaced!, 'blobs', 'org', orgId, 'photos', 'after.jpg'), 'utf8')).toBe('photo taken after');
  }, 120_000);

  it('refuses while a server holds the store, saying to stop it, and changes nothing', async () => {
    const db = await openStore({ dataDir });
    try {
      const out = path.join(root, 'while-running.tar.gz');
      const refused = await admin('backup', '--out', out);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/in use by process .*stop the server/s);
      expect(fs.existsSync(out)).toBe(false);
      const restore = await admin('restore', '--from', path.join(root, 'pool-backup.tar.gz'));
      expect(restore.code).toBe(1);
      expect(await customerNames(db)).toEqual(['Before']);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('refuses a file that is not a backup, a missing --out, and points PostgreSQL users to pg_dump', async () => {
    const noTarget = await admin('backup');
    expect(noTarget.code).toBe(1);
    expect(noTarget.stderr).toContain('--out FILE is required');
    const bogus = path.join(root, 'bogus.tar.gz');
    fs.writeFileSync(bogus, 'not a tarball');
    const refused = await admin('restore', '--from', bogus);
    expect(refused.code).toBe(1);
    expect(await withStore(customerNames)).toEqual(['Before']);
    const pg = await runTs('server/admin-cli.ts', ['backup', '--out', path.join(root, 'x.tgz')], { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' });
    expect(pg.code).toBe(1);
    expect(pg.stderr).toContain('pg_dump');
  }, 60_000);
});

async function streamText(body: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
