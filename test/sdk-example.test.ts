import { describe, expect, it } from 'vitest';
import { runTs } from './support/child.js';
import { useTestServer } from './support/fixture.js';
import { type TestServer } from './support/server.js';

/** client-sdk/README.md's technician example runs as written against a real server. */
describe("the SDK README's technician example", () => {
  let server: TestServer;
  let token: string;
  useTestServer('pglite', { organization: 'Example Pools' }, async (t) => {
    ({ server } = t);
    token = t.token;
  });

  it('records a visit with readings and a photo, uses stock, and the office sees it all', async () => {
    const run = await runTs('client-sdk/examples/technician-flow.ts', [], { BASE_URL: server.url, TOKEN: token });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const status = JSON.parse(/^status (.*)$/m.exec(run.stdout)![1]!);
    expect(status).toMatchObject({ state: 'online', online: true, pendingPushes: 0, pendingPhotoUploads: 0, refusedChanges: 0, lastError: null });
    expect(run.stdout).toMatch(/visit on the server .*"notes":"Brushed, vacuumed".*"freeChlorine":2.5,"ph":7.4.*"caption":"Filter before cleaning","size":\d+/);
    expect(run.stdout).toMatch(/chlorine left on the truck 18/);
  });
});
