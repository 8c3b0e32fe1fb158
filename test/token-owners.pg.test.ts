import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findTokenOwner, revokeToken } from '../server/storage/tokens.js';
import { hashToken } from '../server/operations/auth.js';
import { engines, openTestStore, TEST_DATABASE_URL, type TestStore } from './support/engines.js';
import { gql, newOrganization, startTestServer, type TestServer } from './support/server.js';

/**
 * A process keeps the owners of the tokens it has looked up (server/operations/token-owners.ts):
 * a revocation made anywhere else (another server process, the admin CLI) must still stop the
 * token here, by its notification, and a process that cannot hear notifications must not keep.
 */
describe.each(engines)('kept token owners on %s', (engine) => {
  let store: TestStore;
  let server: TestServer | null = null;

  beforeAll(async () => {
    store = await openTestStore(engine);
  });
  afterEach(async () => {
    await server?.close();
    server = null;
  });
  afterAll(async () => {
    await store?.drop();
  });

  const viewer = async (token: string) => {
    const res = await gql<{ viewer: { role: string } }>(server!, token, '{ viewer { role } }');
    return res.status === 200 && res.data?.viewer ? 'served' : String(res.errors?.[0]?.extensions?.reason ?? res.status);
  };

  /** Revokes as another process would: in the store, announced by notification only. */
  async function revokeElsewhere(orgId: string, token: string): Promise<void> {
    const owner = (await findTokenOwner(store.db, orgId, hashToken(token)))!;
    await store.db.transaction((tx) => revokeToken(tx, orgId, owner.tokenId));
  }

  async function refusedWithin(token: string, ms: number): Promise<string> {
    const until = Date.now() + ms;
    let answer = await viewer(token);
    while (answer === 'served' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      answer = await viewer(token);
    }
    return answer;
  }

  it('a token revoked elsewhere stops working here when the notification arrives', async () => {
    server = await startTestServer(store.db);
    const { org, token } = await newOrganization(store.db, 'Revoked Elsewhere');
    expect(await viewer(token)).toBe('served');
    expect(await viewer(token)).toBe('served'); // served from what this process keeps
    await revokeElsewhere(org.id, token);
    expect(await refusedWithin(token, 2_000)).toBe('revoked');
  });

  it.runIf(engine === 'postgres')('while its listening connection is lost, a process looks every token up', async () => {
    server = await startTestServer(store.db);
    const { org, token } = await newOrganization(store.db, 'Deaf Process');
    expect(await viewer(token)).toBe('served');
    const admin = new pg.Client({ connectionString: store.url ?? TEST_DATABASE_URL });
    await admin.connect();
    try {
      // The revocation listener's connection dies; the process notices before it reconnects (500 ms).
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'listen "pool_revocations"%'`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await revokeElsewhere(org.id, token);
      expect(await viewer(token)).toBe('revoked');
    } finally {
      await admin.end();
    }
  });
});
