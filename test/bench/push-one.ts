import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PUSH_CHECKPOINT_HEADER } from '../../shared/index.js';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import type { Queryable } from '../../server/storage/db.js';
import { openStore } from '../../server/storage/open.js';
import { spawnBuiltServer, waitForOutput } from '../support/child.js';
import { benchDatabase } from './bench-database.js';
import { seedOrganizationData } from './seed.js';

/**
 * `BENCH_ONLY=push`: the round trip of a push of ONE new visit, as a technician's phone makes it
 * (`POST /sync/services/push?checkpoint=`, its pull position, moved on by each answer), to the
 * server `npm start` runs, in its own process, on loopback. The company has about 20,000 visits;
 * the visit's customer has 100, then 10,000 of them (every one the technician's, in their window,
 * so their phone and the office's hold the customer many times over). The store's statistics are
 * fresh (ANALYZE, as the statistics keeper or autovacuum leave them), the windows the defaults.
 * BENCH_PUSHES (300) pushes per customer after 30 to warm up. Beside the round trip, the CPU time a
 * push costs the server process and, on PostgreSQL, the database's backends (from /proc): on a
 * machine others load, what a push costs when it is not waiting for a core.
 */
const PUSHES = Number(process.env.BENCH_PUSHES ?? 300);
const WARM_UP = 30;
const COMPANY_VISITS = 20_000;
const CUSTOMERS: readonly { id: string; visits: number }[] = [
  { id: 'bench-small', visits: 100 },
  { id: 'bench-large', visits: 10_000 },
];

const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

/** The customers' visits, the technician's, in the last 30 days. */
async function seedCustomers(q: Queryable, orgId: string, technicianId: string): Promise<void> {
  for (const customer of CUSTOMERS) {
    await q.query(`insert into customers (org_id, id, last_name) values ($1, $2, 'Bench')`, [orgId, customer.id]);
    await q.query(
      `insert into services (org_id, id, customer_id, new_technician_id, start_time, photos)
       select $1, $2 || '-' || i, $2, $3, now() - make_interval(days => (i % 30)::int), '[]' from generate_series(1, $4::int) i`,
      [orgId, customer.id, technicianId, customer.visits],
    );
  }
  await q.query('analyze');
}

interface Seeded {
  token: string;
  technicianId: string;
  /** The technician's feed head of visits: where their phone's pull checkpoint stands. */
  checkpoint: number;
}

async function seed(databaseUrl: string | undefined, dataDir: string): Promise<Seeded> {
  const db = await openStore({ databaseUrl, dataDir });
  try {
    const { organization } = await provisionOrganization(db, { name: 'Push Bench' });
    const { token, apiToken } = await issueToken(db, organization.id, { name: 'Phone', role: 'TECHNICIAN' });
    const others = COMPANY_VISITS - CUSTOMERS.reduce((sum, c) => sum + c.visits, 0);
    await seedOrganizationData(db, organization.id, { customers: 2000, services: others });
    await seedCustomers(db, organization.id, apiToken.userId);
    const { rows } = await db.query<{ seq: number }>(
      `select coalesce(max(seq), 0) as seq from scope_rows where org_id = $1 and audience = $2 and collection = 'services'`,
      [organization.id, apiToken.userId],
    );
    return { token, technicianId: apiToken.userId, checkpoint: Number(rows[0]!.seq) };
  } finally {
    await db.close();
  }
}

/** CPU time (ms) a process has used, from /proc (Linux). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time of the server process and of the database's backends serving it (PostgreSQL), by pid. */
async function cpuSnapshot(serverPid: number, database: pg.Client | null): Promise<Map<number, number>> {
  const pids = [serverPid];
  if (database) {
    const { rows } = await database.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    pids.push(...rows.map((r) => r.pid));
  }
  return new Map(await Promise.all(pids.map(async (pid) => [pid, await cpuMs(pid)] as const)));
}

/** ms of CPU per push between two snapshots: the server's, and the backends' (those present at the end). */
function cpuPerPush(before: Map<number, number>, after: Map<number, number>, serverPid: number, pushes: number): { server: number; database: number } {
  let database = 0;
  for (const [pid, ms] of after) if (pid !== serverPid) database += ms - (before.get(pid) ?? 0);
  return { server: (after.get(serverPid)! - before.get(serverPid)!) / pushes, database: database / pushes };
}

/** One push of one new visit of the customer's; its round trip in ms, and the checkpoint the answer moves the phone to. */
async function pushOne(url: string, seeded: Seeded, customerId: string, checkpoint: number): Promise<{ ms: number; checkpoint: number }> {
  const id = `pushed-${randomBytes(8).toString('hex')}`;
  const body = JSON.stringify([
    { changeId: `change-${id}`, newDocumentState: { id, customerId, newTechnicianId: seeded.technicianId, startTime: new Date().toISOString(), notes: 'Cleaned filter', photos: [] } },
  ]);
  const started = performance.now();
  const res = await fetch(`${url}/sync/services/push?checkpoint=${checkpoint}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
    body,
  });
  // The answer is the visit as stored (the server completes it: who created it, when).
  const answer = (await res.json()) as { id: string; _deleted?: boolean }[];
  const ms = performance.now() - started;
  if (res.status !== 200 || answer.some((doc) => doc.id !== id || doc._deleted)) throw new Error(`push answered ${res.status}: ${JSON.stringify(answer)}`);
  const moved = res.headers.get(PUSH_CHECKPOINT_HEADER);
  return { ms, checkpoint: moved ? Number(moved) : checkpoint };
}

export async function benchOneVisitPush(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-push-'));
  const { url: databaseUrl, dropDatabase } = engine === 'postgres' ? await benchDatabase(postgresUrl, 'pool_bench_push') : { url: undefined, dropDatabase: async () => {} };
  const dataDir = path.join(folder, 'data');
  try {
    const seeded = await seed(databaseUrl, dataDir);
    const child = await spawnBuiltServer({ PORT: '0', DATA_DIR: dataDir, SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
    try {
      const output = await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000);
      const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
      console.log(`\nOne-visit push round trip on ${engine === 'pglite' ? 'PGlite (server process, folder store)' : 'PostgreSQL'}, a company of ${COMPANY_VISITS} visits, ${PUSHES} pushes each (load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')})`);
      console.log(`| visits of the customer | p50 | p99 | max | CPU per push: server${databaseUrl ? ' + database' : ''} |`);
      console.log('|---|---|---|---|---|');
      let checkpoint = seeded.checkpoint;
      const database = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : null;
      await database?.connect();
      try {
        for (const customer of CUSTOMERS) {
          const times: number[] = [];
          let before = new Map<number, number>();
          for (let i = 0; i < WARM_UP + PUSHES; i++) {
            if (i === WARM_UP) before = await cpuSnapshot(child.pid!, database);
            const pushed = await pushOne(url, seeded, customer.id, checkpoint);
            checkpoint = pushed.checkpoint;
            if (i >= WARM_UP) times.push(pushed.ms);
          }
          const cpu = cpuPerPush(before, await cpuSnapshot(child.pid!, database), child.pid!, PUSHES);
          const cpuText = databaseUrl ? `${cpu.server.toFixed(1)} + ${cpu.database.toFixed(1)} ms` : `${cpu.server.toFixed(1)} ms`;
          console.log(`| ${customer.visits} | ${percentile(times, 0.5).toFixed(1)} ms | ${percentile(times, 0.99).toFixed(1)} ms | ${Math.max(...times).toFixed(1)} ms | ${cpuText} |`);
        }
      } finally {
        await database?.end();
      }
      console.log(`(load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(', ')})`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  } finally {
    await dropDatabase();
    await rm(folder, { recursive: true, force: true });
  }
}
