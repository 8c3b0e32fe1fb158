import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FolderInUseError, lockFolder } from '../server/storage/folder-lock.js';
import { openStore } from '../server/storage/open.js';
import { organizations } from '../server/storage/organizations.js';
import { runTs } from './support/child.js';
import { newOrganization } from './support/server.js';

/** PGlite has no lock of its own: two processes on one folder would silently lose commits. */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-lock-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the embedded data folder has one owner', () => {
  it('a second process fails at once with a clear message, and the first keeps its data', async () => {
    const dir = path.join(tmp, 'shared');
    const db = await openStore({ dataDir: dir });
    const { org } = await newOrganization(db, 'Keeper Pools');

    const second = await runTs('test/fixtures/open-data-dir.ts', [dir], {});
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`The data folder ${dir} is in use by process ${process.pid}`);
    expect(second.stderr).toContain('DATA_DIR');

    // The first process still reads and writes, and its commits survive a reopen.
    await organizations.update(db, org.id, org.id, { phone: '555-0100' });
    await db.close();
    const reopened = await runTs('test/fixtures/open-data-dir.ts', [dir], {});
    expect(reopened.stdout).toContain('opened: 1 organizations');
  });

  it('a second open inside the same process is refused too', async () => {
    const dir = path.join(tmp, 'same-process');
    const db = await openStore({ dataDir: dir });
    try {
      await expect(openStore({ dataDir: dir })).rejects.toThrow(FolderInUseError);
    } finally {
      await db.close();
    }
  });

  it('a lock left by a crashed process is taken over', () => {
    const dir = path.join(tmp, 'crashed');
    fs.mkdirSync(dir);
    const deadPid = 2 ** 22 + 12345; // above Linux's default pid_max: no such process
    fs.writeFileSync(
      path.join(dir, 'server.lock'),
      JSON.stringify({ pid: deadPid, host: os.hostname(), startedAt: '2026-01-01T00:00:00Z' }),
    );
    const lock = lockFolder(dir);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'server.lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(fs.existsSync(path.join(dir, 'server.lock'))).toBe(false);
  });
});
