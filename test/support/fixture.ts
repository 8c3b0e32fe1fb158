import { afterAll, beforeAll } from 'vitest';
import type { Organization } from '../../shared/index.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import type { Engine } from '../../server/storage/db.js';
import { openTestStore, type TestStore } from './engines.js';
import { startTestServer, type TestServer, type TestServerOptions } from './server.js';

/**
 * The setup most API test files share, in one place: a new store on the engine, a real server on
 * it, and an organization with its ADMIN token, made before the file's tests and removed after.
 * `ready` receives them (and may do the file's own setup).
 *
 * @example
 *   let server: TestServer; let admin: string;
 *   useTestServer(engine, { organization: 'Quote Pools' }, (t) => ({ server, token: admin } = t));
 */
export interface ServerFixture {
  store: TestStore;
  server: TestServer;
  org: Organization;
  /** The organization's ADMIN token. */
  token: string;
}

export function useTestServer(
  engine: Engine,
  options: { organization?: string; server?: Partial<TestServerOptions> },
  ready: (fixture: ServerFixture) => void | Promise<void>,
): void {
  let store: TestStore | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    store = await openTestStore(engine);
    server = await startTestServer(store.db, options.server);
    const { organization, token } = await provisionOrganization(store.db, { name: options.organization ?? 'Test Pools' });
    await ready({ store, server, org: organization, token });
  });
  afterAll(async () => {
    await server?.close();
    await store?.drop();
  });
}
