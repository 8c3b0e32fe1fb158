import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import type { Queryable } from '../../server/storage/db.js';
import { openStore } from '../../server/storage/open.js';
import { ROOT, spawnBuiltServer, waitForOutput } from '../support/child.js';
import { benchDatabase } from './bench-database.js';
import type { DeviceReport } from './storm-devices.js';

/**
 * The morning storm: a company of 200 technicians, 65 customers each (13,000),
 * visited weekly from two weeks back to one week ahead (52,000 visits), a truck each and a
 * warehouse, 500 items. At 8 a.m. every technician's phone starts its first sync within 10 s and
 * then holds its live stream: light protocol clients (test/bench/storm-devices.ts) in a few
 * processes, so the bench measures the server. Then the office writes 200 changes every phone
 * must receive (the item catalog, which every phone holds), 20 ms apart, and moves visits from one
 * technician to another (the new phone must have the visit and its customer).
 *
 * BENCH_STORM_DEVICES (200) sets the number of technicians; run.ts runs PGlite with one server process
 * and PostgreSQL with one and with two (an embedded store belongs to one process).
 */
const TECHNICIANS = Number(process.env.BENCH_STORM_DEVICES ?? 200);
const CUSTOMERS_EACH = 65;
const WEEKS = [-2, -1, 0, 1];
const ITEMS = 500;
const DEVICE_PROCESSES = 4;
const STARTS_WITHIN_MS = 10_000;
const COLLECTIONS = ['organization', 'serviceTypes', 'inventoryItems', 'inventoryLocations', 'customers', 'appointments', 'services', 'quotes', 'stockLevels', 'stockMovements'];
/** Visits each phone completes and pushes at once after the fan-out (this week's first ones it holds open). */
const VISITS_PER_PUSH = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;

interface Company {
  orgId: string;
  admin: string;
  technicians: { token: string; userId: string }[];
}

/** The company, written as SQL in a few statements (the scope triggers keep every phone's feed as they go). */
async function seedCompany(q: Queryable, orgId: string, technicianIds: string[]): Promise<void> {
  await q.query(`insert into service_types (org_id, id, display) values ($1, 'type-weekly', 'Weekly service')`, [orgId]);
  await q.query(`insert into inventory_locations (org_id, id, name) values ($1, 'loc-warehouse', 'Warehouse')`, [orgId]);
  await q.query(
    `insert into inventory_locations (org_id, id, name, technician_id)
     select $1, 'truck-' || t.n, 'Truck ' || t.n, t.id from unnest($2::text[]) with ordinality t(id, n)`,
    [orgId, technicianIds],
  );
  await q.query(
    `insert into inventory_items (org_id, id, name, sku, category, unit_price, cost_price, quantity, location_id, unit, is_active)
     select $1, 'item-' || i, 'Item ' || i, 'SKU-' || i, (array['CHEMICAL','PARTS','SUPPLIES','EQUIPMENT'])[1 + i % 4], 5 + i % 50, 2 + i % 30, 0, 'loc-warehouse', 'each', true
       from generate_series(1, $2::int) i`,
    [orgId, ITEMS],
  );
  // Customer c belongs to technician c % n; each is visited on its weekday, four weeks running.
  await q.query(
    `insert into customers (org_id, id, first_name, last_name, street_address, city, state, zip_code, phone_number, email, service, pool, notes)
     select $1, 'cust-' || c, 'First' || c, 'Customer ' || c, (100 + c % 9000) || ' Palm St', 'Phoenix', 'AZ', '850' || lpad((c % 100)::text, 2, '0'),
            '(480) 555-' || lpad((c % 10000)::text, 4, '0'), 'c' || c || '@example.com',
            jsonb_build_object('technicianId', ($2::text[])[1 + c % cardinality($2::text[])], 'typeId', 'type-weekly', 'frequency', 'WEEKLY', 'dayOfWeek', 1 + c % 5),
            jsonb_build_object('kind', 'POOL', 'volumeGallons', 15000 + c % 10 * 1000, 'gateCode', lpad((c * 7 % 10000)::text, 4, '0')),
            'Dog in the yard; use the side gate.'
       from generate_series(0, $3::int - 1) c`,
    [orgId, technicianIds, technicianIds.length * CUSTOMERS_EACH],
  );
  await q.query(
    `insert into services (org_id, id, customer_id, type_id, new_technician_id, start_time, end_time, notes, photos, chemical_readings)
     select $1, 'visit-' || c || '-' || w, 'cust-' || c, 'type-weekly', ($2::text[])[1 + c % cardinality($2::text[])],
            date_trunc('week', now()) + make_interval(days => 7 * w + c % 5, hours => 8 + c % 9),
            case when w < 0 then date_trunc('week', now()) + make_interval(days => 7 * w + c % 5, hours => 8 + c % 9, mins => 35) end,
            case when w < 0 then 'Brushed walls, emptied baskets, backwashed the filter. Water clear.' end,
            '[]'::jsonb,
            case when w < 0 then jsonb_build_object('freeChlorine', 2 + c % 3, 'ph', 7.4, 'totalAlkalinity', 90) end
       from generate_series(0, $3::int - 1) c, unnest($4::int[]) w`,
    [orgId, technicianIds, technicianIds.length * CUSTOMERS_EACH, WEEKS],
  );
  // Truck and warehouse stock: 20 items on each truck, every item in the warehouse.
  await q.query(
    `insert into stock_levels (org_id, id, item_id, location_id, quantity)
     select $1, 'level-' || l.id || '-' || i, 'item-' || i, l.id, 10
       from inventory_locations l, generate_series(1, $2::int) i
      where l.org_id = $1 and (l.id = 'loc-warehouse' or i <= 20)`,
    [orgId, ITEMS],
  );
  for (const table of ['customers', 'services', 'scope_rows', 'stock_levels', 'inventory_items', 'inventory_locations']) await q.query(`vacuum (analyze) ${table}`);
}

async function prepareStore(engine: 'pglite' | 'postgres', postgresUrl: string | undefined, folder: string) {
  const { url: databaseUrl, dropDatabase: drop } = engine === 'postgres' ? await benchDatabase(postgresUrl, 'pool_bench_storm') : { url: undefined, dropDatabase: async () => {} };
  const db = await openStore({ databaseUrl, dataDir: path.join(folder, 'data') });
  const { organization, token: admin } = await provisionOrganization(db, { name: 'Storm Pools' });
  const technicians = [];
  for (let i = 0; i < TECHNICIANS; i++) {
    const { token, apiToken } = await issueToken(db, organization.id, { name: `Technician ${i + 1}`, role: 'TECHNICIAN' });
    technicians.push({ token, userId: apiToken.userId });
  }
  const started = performance.now();
  await seedCompany(db, organization.id, technicians.map((t) => t.userId));
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from scope_rows where org_id = $1 and present`, [organization.id]);
  console.log(`seeded ${TECHNICIANS} technicians, ${TECHNICIANS * CUSTOMERS_EACH} customers, ${TECHNICIANS * CUSTOMERS_EACH * WEEKS.length} visits, ${ITEMS} items (${rows[0]!.n} phone entries) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await db.close();
  return { databaseUrl, drop, company: { orgId: organization.id, admin, technicians } satisfies Company };
}

interface ServerProcess {
  url: string;
  child: ChildProcess;
}

async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}

async function peakRssMb(pid: number): Promise<number> {
  return Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

async function graphql(url: string, token: string, query: string, variables: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
}

export async function benchStorm(engine: 'pglite' | 'postgres', postgresUrl?: string, serverProcesses = 1): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-storm-'));
  const { databaseUrl, drop, company } = await prepareStore(engine, postgresUrl, folder);
  const servers: ServerProcess[] = [];
  const devices: ChildProcess[] = [];
  try {
    for (let i = 0; i < serverProcesses; i++) {
      const child = await spawnBuiltServer({ PORT: '0', DATA_DIR: path.join(folder, 'data'), SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
      const output = await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000);
      servers.push({ url: /listening on (http:\/\/\S+)/.exec(output)![1]!, child });
    }
    const cpuBefore = await Promise.all(servers.map((s) => cpuSeconds(s.child.pid!)));
    const begin = Date.now() + 2000;
    const plans = Array.from({ length: DEVICE_PROCESSES }, () => [] as { token: string; url: string; startAtMs: number }[]);
    company.technicians.forEach((t, i) =>
      plans[i % DEVICE_PROCESSES]!.push({ token: t.token, url: servers[i % servers.length]!.url, startAtMs: begin + Math.round((i / company.technicians.length) * STARTS_WITHIN_MS) }),
    );
    const outputs: string[] = plans.map(() => '');
    const ready = plans.map((plan, i) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/bench/storm-devices.ts'), JSON.stringify({ devices: plan, collections: COLLECTIONS, pullLimit: 1000, visitsPerPush: VISITS_PER_PUSH })], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      devices.push(child);
      child.stdout!.on('data', (chunk) => (outputs[i] += chunk));
      return new Promise<void>((resolve) => {
        const check = setInterval(() => outputs[i]!.includes('"ready"') && (clearInterval(check), resolve()), 100);
      });
    });
    await Promise.race([Promise.all(ready), sleep(180_000)]);
    const syncedAt = Date.now();
    const cpuAfterSync = await Promise.all(servers.map((s) => cpuSeconds(s.child.pid!)));

    // The office's changes: every phone holds the item catalog, so each reaches all of them.
    const office = servers[0]!.url;
    for (let i = 0; i < 200; i++) {
      await graphql(office, company.admin, `mutation($id: ID!, $d: String) { updateInventoryItem(id: $id, input: {description: $d}) { id } }`, { id: `item-${1 + (i % ITEMS)}`, d: `storm-fanout-${i}@${Date.now()}` });
      await sleep(20);
    }
    // Visits moved from one technician to the next: the new phone needs the visit and its customer.
    const moves: { probe: string; customer: string; at: number; to: number }[] = [];
    for (let m = 0; m < 10; m++) {
      const customer = m * 37 + 5;
      const from = customer % company.technicians.length;
      const to = (from + 1) % company.technicians.length;
      const probe = `storm-probe-${m}`;
      const at = Date.now();
      await graphql(office, company.admin, `mutation($id: ID!, $t: ID, $n: String) { updateService(id: $id, input: {newTechnicianId: $t, notes: $n}) { id } }`, {
        id: `visit-${customer}-0`,
        t: company.technicians[to]!.userId,
        n: probe,
      });
      moves.push({ probe, customer: `cust-${customer}`, at, to });
      await sleep(100);
    }
    await sleep(3000);
    const cpuAfter = await Promise.all(servers.map((s) => cpuSeconds(s.child.pid!)));

    const rssBeforePush = await Promise.all(servers.map((s) => peakRssMb(s.child.pid!)));
    // Every phone pushes its completed visits at the same moment (each waits for its answer).
    const pushBegin = Date.now();
    const pushed = devices.map((child, i) => {
      child.kill('SIGUSR2');
      return new Promise<void>((resolve) => {
        const check = setInterval(() => outputs[i]!.includes('"pushed"') && (clearInterval(check), resolve()), 20);
      });
    });
    await Promise.race([Promise.all(pushed), sleep(120_000)]);
    const pushEnd = Date.now();
    const cpuAfterPush = await Promise.all(servers.map((s) => cpuSeconds(s.child.pid!)));
    const rss = await Promise.all(servers.map((s) => peakRssMb(s.child.pid!)));

    // Reports by technician: process p ran technicians p, p + k, p + 2k, ...
    const reports: DeviceReport[] = [];
    await Promise.all(
      devices.map(async (child, p) => {
        const done = new Promise((r) => child.once('close', r));
        child.kill('SIGTERM');
        await done;
        const line = outputs[p]!.trim().split('\n').find((l) => l.startsWith('{"reports"'));
        if (line) (JSON.parse(line) as { reports: DeviceReport[] }).reports.forEach((r, k) => (reports[p + k * DEVICE_PROCESSES] = r));
      }),
    );
    report(engine, serverProcesses, reports, { begin, syncedAt, cpuBefore, cpuAfterSync, cpuAfter, rss, rssBeforePush, moves, push: { begin: pushBegin, end: pushEnd, cpuAfter: cpuAfterPush }, technicians: company.technicians.length });
  } finally {
    for (const child of devices) child.kill('SIGKILL');
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('close', r));
    }
    await drop();
    await rm(folder, { recursive: true, force: true });
  }
}

function report(
  engine: string,
  processes: number,
  reports: DeviceReport[],
  m: {
    begin: number;
    syncedAt: number;
    cpuBefore: number[];
    cpuAfterSync: number[];
    cpuAfter: number[];
    rss: number[];
    rssBeforePush: number[];
    moves: { probe: string; customer: string; at: number; to: number }[];
    push: { begin: number; end: number; cpuAfter: number[] };
    technicians: number;
  },
): void {
  const synced = reports.filter((r) => r.inSyncAt !== null);
  const durations = synced.map((r) => r.inSyncAt! - r.startedAt);
  const allInSync = synced.length ? Math.max(...synced.map((r) => r.inSyncAt!)) - m.begin : NaN;
  const latencies = reports.flatMap((r) => r.latencies);
  const expectedDeliveries = 200 * reports.length;
  const sum = (f: (r: DeviceReport) => number) => reports.reduce((s, r) => s + f(r), 0);
  const moved = m.moves.map((move) => {
    const arrivals = reports[move.to]?.arrivals;
    const visit = arrivals?.[move.probe];
    const customer = arrivals?.[move.customer];
    return visit === undefined || customer === undefined ? Infinity : Math.max(visit, customer) - move.at;
  });
  const sec = (ms: number) => (ms / 1000).toFixed(1);
  console.log(`\nMorning storm on ${engine}, ${processes} server process${processes > 1 ? 'es' : ''}: ${m.technicians} phones starting within ${STARTS_WITHIN_MS / 1000} s`);
  console.log('| measure | value |');
  console.log('|---|---|');
  console.log(`| phones in sync (initial sync done, stream open) | ${synced.length} of ${reports.length} |`);
  console.log(`| time from the first start until all are in sync | ${sec(allInSync)} s |`);
  console.log(`| one phone's initial sync, p50 / p99 | ${sec(percentile(durations, 0.5))} / ${sec(percentile(durations, 0.99))} s |`);
  console.log(`| documents per phone (mean) | ${Math.round(sum((r) => r.documents) / reports.length)} |`);
  console.log(`| bytes per phone on the wire (gzip) / decoded, mean | ${(sum((r) => r.wireBytes) / reports.length / 1024).toFixed(0)} KB / ${(sum((r) => r.jsonBytes) / reports.length / 1024).toFixed(0)} KB |`);
  console.log(`| requests / refused (429) / failed | ${sum((r) => r.requests)} / ${sum((r) => r.refused)} / ${sum((r) => r.failed)} |`);
  console.log(`| server CPU during the storm / during the fan-out | ${m.cpuAfterSync.map((c, i) => (c - m.cpuBefore[i]!).toFixed(1)).join(' + ')} s / ${m.cpuAfter.map((c, i) => (c - m.cpuAfterSync[i]!).toFixed(1)).join(' + ')} s |`);
  console.log(`| server peak RSS before the pushes / after them | ${m.rssBeforePush.map((r) => r.toFixed(0)).join(' + ')} / ${m.rss.map((r) => r.toFixed(0)).join(' + ')} MB |`);
  console.log(`| fan-out of 200 changes to every phone: delivered, p50 / p99 | ${latencies.length} of ${expectedDeliveries}, ${percentile(latencies, 0.5)} / ${percentile(latencies, 0.99)} ms |`);
  console.log(`| a visit moved to another phone: there with its customer, worst of ${moved.length} | ${Math.max(...moved)} ms |`);
  const pushes = reports.filter((r) => r.pushMs !== null).map((r) => r.pushMs!);
  const answered = sum((r) => r.pushAnswered);
  console.log(
    `| every phone pushes ${VISITS_PER_PUSH} completed visits at once: ${sum((r) => r.pushed)} visits from ${pushes.length} phones, all answered in / one phone's push p50 / p99 | ${sec(m.push.end - m.push.begin)} s / ${percentile(pushes, 0.5)} / ${percentile(pushes, 0.99)} ms (${answered} answered with the server's state) |`,
  );
  console.log(`| server CPU during the pushes | ${m.push.cpuAfter.map((c, i) => (c - m.cpuAfter[i]!).toFixed(1)).join(' + ')} s |`);
}
