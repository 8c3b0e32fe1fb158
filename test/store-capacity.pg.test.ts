import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken, tokenForUser } from '../server/operations/auth.js';
import { provisionOrganization } from '../server/operations/organization.js';
import type { Database } from '../server/storage/db.js';
import { openStore } from '../server/storage/open.js';
import { activeTechnicians } from '../server/storage/active-technicians.js';
import { revokeToken } from '../server/storage/tokens.js';
import { endsWithThisProcess, finished, spawnBuiltServer, spawnServerBundle, waitForOutput } from './support/child.js';
import { createTestDatabase, engines, openTestStore, TEST_DATABASE_URL } from './support/engines.js';

/**
 * An embedded store past its capacity (EMBEDDED_STORE_MAX_TECHNICIANS, lowered here to a few
 * technicians) is told to the operator where they look: one warning line in the log at start and
 * `warnings` in /readyz's body, while /readyz stays 200 ready. Within the capacity, and on
 * PostgreSQL whatever its size, neither. The real server process, as `npm start` runs it.
 */
const DAY_MS = 86_400_000;

interface Readyz {
  status: string;
  warnings: { code: string; message: string }[];
}

/**
 * Three technicians with a phone, and two who no longer count: one whose token was revoked, one
 * whose only live token went unused past the idle days. Returns the admin's token.
 */
async function seedCompany(db: Database): Promise<string> {
  const { organization, token } = await provisionOrganization(db, { name: 'Growing Pools' });
  for (let i = 1; i <= 3; i++) await issueToken(db, organization.id, { name: `Technician ${i}`, role: 'TECHNICIAN' });
  const revoked = await issueToken(db, organization.id, { name: 'Left the company', role: 'TECHNICIAN' });
  await revokeToken(db, organization.id, revoked.apiToken.id);
  const idle = await issueToken(db, organization.id, { name: 'On leave', role: 'TECHNICIAN' });
  await revokeToken(db, organization.id, idle.apiToken.id);
  await tokenForUser(db, organization.id, 'Old phone', idle.apiToken.userId, { at: new Date(Date.now() - 45 * DAY_MS) });
  return token;
}

/** Starts the server, reads its output up to "listening" and /readyz, and stops it. */
async function startAndAsk(env: Record<string, string>, build = false) {
  const settings = { PORT: '0', HOST: '127.0.0.1', SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn', DATABASE_URL: '', ...env };
  const child = endsWithThisProcess(build ? await spawnBuiltServer(settings) : spawnServerBundle(settings));
  const done = finished(child);
  try {
    const out = await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000);
    const res = await fetch(`${/listening on (http:\/\/\S+)/.exec(out)![1]!}/readyz`);
    const body = (await res.json()) as Readyz;
    return { status: res.status, body, warningLines: out.split('\n').filter((line) => line.includes('EMBEDDED_STORE_OUTGROWN')) };
  } finally {
    child.kill('SIGTERM');
    await done;
  }
}

describe('the server process on an embedded store', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'pool-capacity-'));
    const db = await openStore({ dataDir: folder });
    await seedCompany(db).finally(() => db.close());
  }, 120_000); // a new store's first open migrates it: slow on a loaded machine
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('past its capacity: one warning line at start and /readyz lists it, still 200 ready; within it: neither', { timeout: 240_000 }, async () => {
    const over = await startAndAsk({ DATA_DIR: folder, EMBEDDED_STORE_MAX_TECHNICIANS: '2' }, true);
    expect(over.status).toBe(200);
    expect(over.body.status).toBe('ready');
    expect(over.body.warnings).toEqual([
      { code: 'EMBEDDED_STORE_OUTGROWN', message: expect.stringMatching(/3 technicians with a phone, past its capacity of 2.*PostgreSQL.*DATABASE_URL.*README\.md#choosing-the-store/) },
    ]);
    expect(over.warningLines).toHaveLength(1);
    expect(JSON.parse(over.warningLines[0]!)).toMatchObject({ level: 40, code: 'EMBEDDED_STORE_OUTGROWN', technicians: 3, msg: over.body.warnings[0]!.message });

    const within = await startAndAsk({ DATA_DIR: folder, EMBEDDED_STORE_MAX_TECHNICIANS: '3' });
    expect(within.status).toBe(200);
    expect(within.body).toMatchObject({ status: 'ready', warnings: [] });
    expect(within.warningLines).toEqual([]);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('the server process on PostgreSQL', () => {
  it('never warns of the embedded store, whatever the size', { timeout: 240_000 }, async () => {
    const { url, dropDatabase } = await createTestDatabase();
    try {
      const db = await openStore({ databaseUrl: url });
      await seedCompany(db).finally(() => db.close());
      const answer = await startAndAsk({ DATABASE_URL: url, EMBEDDED_STORE_MAX_TECHNICIANS: '1' }, true);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'ready', warnings: [] });
      expect(answer.warningLines).toEqual([]);
    } finally {
      await dropDatabase();
    }
  });
});

describe.each(engines)('who counts, on %s', (engine) => {
  it('technicians with a token unrevoked and used within the idle days; not a revoked one, an idle one, or the office', async () => {
    const store = await openTestStore(engine);
    try {
      await seedCompany(store.db);
      expect(await activeTechnicians(store.db, { tokenIdleDays: 30 })).toBe(3);
      // The idle technician's old token counts again when the idle days are longer than its age.
      expect(await activeTechnicians(store.db, { tokenIdleDays: 60 })).toBe(4);
    } finally {
      await store.drop();
    }
  });
});
