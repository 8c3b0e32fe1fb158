import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { finished, runTs, spawnNpmStart, spawnServerBundle, waitForOutput } from './support/child.js';

/**
 * The real entry points as a user runs them: `npm start` (which builds and runs the server bundle)
 * on an empty embedded store, graceful shutdown through npm, and `npm run admin`. Later starts run
 * the bundle the first one built (building four bundles again under a loaded CI took half a minute
 * each and proved nothing more).
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-main-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const dataDir = path.join(tmp, 'data');
const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '' };

async function startServer(how: 'npm start' | 'bundle') {
  const child = how === 'npm start' ? spawnNpmStart(env) : spawnServerBundle(env);
  const done = finished(child);
  // A server that never says it listens is stopped, not left running after the test.
  const out = await waitForOutput(child, /listening on (http:\/\/\S+)/, 150_000).catch((error: unknown) => {
    child.kill('SIGTERM'); // npm passes it on to the build or the server
    throw error;
  });
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  return { child, done, out, url };
}

describe('npm start', () => {
  // `npm start` builds the server and three browser bundles: slow on a loaded machine.
  it('creates a demo organization on an empty store and prints its admin token once', { timeout: 180_000 }, async () => {
    const first = await startServer('npm start');
    const token = /\b(pst_[A-Za-z0-9_-]+)/.exec(first.out)?.[1];
    expect(token).toBeDefined();
    const res = await fetch(`${first.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ organization { name } }' }),
    });
    expect(await res.json()).toEqual({ data: { organization: { name: 'Demo Pool Service' } } });
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);

    first.child.kill('SIGTERM');
    const exit = await first.done;
    expect(exit.code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);

    const second = await startServer('bundle');
    expect(second.out).not.toMatch(/pst_/);
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  });

  it('`npm run admin -- create-org --json` provisions offline on the same store', async () => {
    const res = await runTs('server/admin-cli.ts', ['create-org', '--name', 'Offline Pools', '--json'], env);
    expect(res.code).toBe(0);
    const created = JSON.parse(res.stdout) as { organization: { name: string }; token: string };
    expect(created.organization.name).toBe('Offline Pools');
    expect(created.token).toMatch(/^pst_/);

    const bad = await runTs('server/admin-cli.ts', ['create-org', '--name', ''], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('name: must not be empty');
  });

  it('refuses to start with invalid configuration, naming the variable', async () => {
    const res = await finished(spawnServerBundle({ ...env, PORT: 'eighty' }));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('PORT');
  });
});
