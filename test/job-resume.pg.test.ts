import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endsWithThisProcess, spawnTs, waitForOutput } from './support/child.js';
import { getBulk, startBulk } from './support/bulk.js';
import { createTestDatabase, engines } from './support/engines.js';
import { pushChanges } from './support/sync.js';

/**
 * A bulk operation running when its server is killed (SIGKILL) is taken back by the same server's
 * next start at once, not after its heartbeat goes stale (BULK_STALE_MS, 30 s by default): the
 * server runs as its own process, as users run it, on a fixed port (on PostgreSQL, host and port
 * name a process's lives; the embedded store is held by one process at a time).
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-resume-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ADMIN = 'job-resume-platform-admin-token';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function start(env: Record<string, string>): Promise<ChildProcess> {
  const child = endsWithThisProcess(spawnTs('server/main.ts', [], env));
  await waitForOutput(child, /listening on/, 150_000);
  child.stdout!.resume();
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe.each(engines)('interrupted bulk operations on %s', (engine) => {
  it('resume within 5 s of the restart', { timeout: 400_000 }, async () => {
    const database = engine === 'postgres' ? await createTestDatabase() : null;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(tmp, engine),
      DATABASE_URL: database?.url ?? '',
      SEED_DEMO_ORG: 'false',
      PLATFORM_ADMIN_TOKEN: ADMIN,
      // One customer per chunk: the job runs long enough to be killed in the middle.
      BULK_CHUNK_SIZE: '1',
      BULK_POLL_MS: '100',
      // Far longer than a restart takes on a loaded machine: only "this was my earlier life" can explain a quick resume.
      BULK_STALE_MS: '600000',
    };
    let server = await start(env);
    try {
      const res = await fetch(`${url}/admin/organizations`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Resuming Pools' }) });
      const { token } = (await res.json()) as { token: string };
      const rows = Array.from({ length: 400 }, (_, i) => ({ newDocumentState: { id: `resume-${i}`, lastName: `Customer ${i}`, city: 'Mesa' } }));
      expect((await pushChanges({ url }, token, 'customers', rows)).status).toBe(200);
      const started = await startBulk({ url }, token, { kind: 'CUSTOMERS_UPDATE', selection: { selector: { filters: { city: { eq: 'Mesa' } } } }, patch: { zone: 'East' } });
      expect(started.status).toBe(202);
      const id = started.body.id as string;
      let before = await getBulk({ url }, token, id);
      for (let i = 0; i < 400 && before.processed < 5; i++) {
        await new Promise((r) => setTimeout(r, 25));
        before = await getBulk({ url }, token, id);
      }
      expect(before.status).toBe('RUNNING');

      await kill(server);
      server = await start(env);
      const restarted = Date.now();
      let after = await getBulk({ url }, token, id);
      while (after.processed <= before.processed && after.status === 'RUNNING' && Date.now() - restarted < 20_000) {
        await new Promise((r) => setTimeout(r, 50));
        after = await getBulk({ url }, token, id);
      }
      const waited = Date.now() - restarted;
      expect(after.processed, `no progress ${waited} ms after the restart`).toBeGreaterThan(before.processed);
      expect(waited).toBeLessThan(5_000);
    } finally {
      await kill(server);
      await database?.dropDatabase();
    }
  });
});
