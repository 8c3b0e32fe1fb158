import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { lastMonth } from '../../server/demo-billing.js';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import type { Queryable } from '../../server/storage/db.js';
import { openStore } from '../../server/storage/open.js';
import { spawnBuiltServer, waitForOutput } from '../support/child.js';
import { benchDatabase } from './bench-database.js';

/**
 * The month's billing at company scale (BENCH_ONLY=billing): the storm's company of 200
 * technicians, 65 customers each (13,000; BENCH_BILLING_CUSTOMERS scales it), each visited weekly
 * through last month (four completed visits, about 52,000) with a dose of chlorine on every visit,
 * every customer at a rate, chemicals billed at their unit price, autoSendInvoices on. Against the
 * built server as `npm start` runs it, with an SMTP sink on the loopback, it measures:
 * the month's run (generateInvoices until its bulk operation ends), finalizing every draft
 * (finalizeInvoices in requests of 100 ids, so each answers within REQUEST_TIMEOUT_MS), and the invoice emails with their PDFs drained
 * through the outbox (until the sink holds one per invoice), with a GraphQL read's latency
 * (p50/p99) while they drain and the server's peak RSS. Bounded: every wait has a deadline.
 */
const CUSTOMERS = Number(process.env.BENCH_BILLING_CUSTOMERS ?? 13_000);
const CUSTOMERS_EACH = 65;
const ITEMS = 50;
/** Ids per finalizeInvoices request: each finalization is its own transaction, and a request must answer within REQUEST_TIMEOUT_MS. */
const FINALIZE_BATCH = 100;
const RUN_DEADLINE_MS = 20 * 60_000;
const DRAIN_DEADLINE_MS = 30 * 60_000;
const READ_EVERY_MS = 250;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Customers, last month's completed visits and a dose on each, in a few statements. */
export async function seedBillableMonth(q: Queryable, orgId: string, technicianIds: string[], customers: number, month: { start: string; end: string }): Promise<number> {
  await q.query(`insert into service_types (org_id, id, display) values ($1, 'type-weekly', 'Weekly service')`, [orgId]);
  await q.query(`insert into inventory_locations (org_id, id, name) values ($1, 'loc-warehouse', 'Warehouse')`, [orgId]);
  await q.query(
    `insert into inventory_items (org_id, id, name, sku, category, unit_price, cost_price, quantity, location_id, unit, is_active)
     select $1, 'item-' || i, 'Chemical ' || i, 'SKU-' || i, 'CHEMICAL', 0.05 + (i % 10) * 0.01, 0.03, 0, 'loc-warehouse', 'fl oz', true
       from generate_series(1, $2::int) i`,
    [orgId, ITEMS],
  );
  await q.query(
    `insert into customers (org_id, id, first_name, last_name, street_address, city, state, zip_code, phone_number, email, status, service)
     select $1, 'cust-' || c, 'First' || c, 'Customer ' || c, (100 + c % 9000) || ' Palm St', 'Phoenix', 'AZ', '850' || lpad((c % 100)::text, 2, '0'),
            '(480) 555-' || lpad((c % 10000)::text, 4, '0'), 'c' || c || '@example.com', 'ACTIVE',
            jsonb_build_object('technicianId', ($2::text[])[1 + c % cardinality($2::text[])], 'typeId', 'type-weekly', 'frequency', 'WEEKLY',
                               'dayOfWeek', 1 + c % 5, 'rate', 120 + c % 5 * 5)
       from generate_series(0, $3::int - 1) c`,
    [orgId, technicianIds, customers],
  );
  // Four visits each, a week apart from the month's first days, done in 35 minutes.
  await q.query(
    `insert into services (org_id, id, customer_id, type_id, new_technician_id, start_time, end_time, notes, photos, chemical_readings)
     select $1, 'visit-' || c || '-' || w, 'cust-' || c, 'type-weekly', ($2::text[])[1 + c % cardinality($2::text[])],
            $4::date + make_interval(days => 7 * w + c % 5, hours => 8 + c % 9),
            $4::date + make_interval(days => 7 * w + c % 5, hours => 8 + c % 9, mins => 35),
            'Brushed walls, emptied baskets. Water clear.', '[]'::jsonb,
            jsonb_build_object('freeChlorine', 2 + c % 3, 'ph', 7.4, 'totalAlkalinity', 90)
       from generate_series(0, $3::int - 1) c, generate_series(0, 3) w`,
    [orgId, technicianIds, customers, month.start],
  );
  await q.query(
    `insert into stock_movements (org_id, id, item_id, location_id, delta, reason, service_id, created_by_id)
     select s.org_id, 'dose-' || s.id, 'item-' || (1 + abs(hashtext(s.id)) % $2::int), 'loc-warehouse', -(16 + abs(hashtext(s.id)) % 48), 'USE', s.id, s.new_technician_id
       from services s where s.org_id = $1`,
    [orgId, ITEMS],
  );
  for (const table of ['customers', 'services', 'stock_movements', 'inventory_items']) await q.query(`analyze ${table}`);
  return customers * 4;
}

export async function graphql<T>(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** An SMTP server on the loopback that takes every message and counts it, reading nothing. */
export async function smtpSink(): Promise<{ url: string; count: () => number; bytes: () => number; close(): Promise<void> }> {
  let count = 0;
  let bytes = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
      stream.on('end', () => {
        count++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}?ignoreTLS=true`,
    count: () => count,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

export async function peakRssMb(pid: number): Promise<number> {
  return Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

export async function rssMb(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Reads a page of open invoices every READ_EVERY_MS until stopped; answers the latencies. */
export function readWhile(url: string, token: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        await graphql(url, token, '{ infiniteInvoices(first: 20, filter: {status: OPEN}) { edges { node { id number total balanceDue customer { id } } } } }');
        latencies.push(performance.now() - started);
      } catch (error) {
        console.log(`  a read failed: ${(error as Error).message}`);
        running = false;
      }
      await sleep(READ_EVERY_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** Every draft's id, read page by page as an office app would list them. */
export async function draftIds(url: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  type Page = { infiniteInvoices: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };
  for (let after: string | null = null; ; ) {
    const page: Page = await graphql<Page>(url, token, 'query($after: String) { infiniteInvoices(first: 100, after: $after, filter: {status: DRAFT}) { edges { node { id } } pageInfo { hasNextPage endCursor } } }', { after });
    ids.push(...page.infiniteInvoices.edges.map((e) => e.node.id));
    if (!page.infiniteInvoices.pageInfo.hasNextPage) return ids;
    after = page.infiniteInvoices.pageInfo.endCursor;
  }
}

export async function until(what: string, deadlineMs: number, done: () => Promise<boolean>, pollMs = 250): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`billing bench: ${what} not done within ${deadlineMs / 60_000} min`);
    await sleep(pollMs);
  }
}

export async function benchBilling(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-billing-'));
  const { url: databaseUrl, dropDatabase } = engine === 'postgres' ? await benchDatabase(postgresUrl, 'pool_bench_billing') : { url: undefined, dropDatabase: async () => {} };
  const sink = await smtpSink();
  let child: ChildProcess | undefined;
  try {
    const technicianCount = Math.max(1, Math.ceil(CUSTOMERS / CUSTOMERS_EACH));
    const month = lastMonth(Date.now());
    const db = await openStore({ databaseUrl, dataDir: path.join(folder, 'data') });
    const { organization, token: admin } = await provisionOrganization(db, { name: 'Valley Pools' });
    const technicians: string[] = [];
    for (let i = 0; i < technicianCount; i++) technicians.push((await issueToken(db, organization.id, { name: `Technician ${i + 1}`, role: 'TECHNICIAN' })).apiToken.userId);
    const seeding = performance.now();
    const visits = await seedBillableMonth(db, organization.id, technicians, CUSTOMERS, month);
    console.log(`\nBilling (${engine}): seeded ${CUSTOMERS} customers, ${visits} visits and as many doses of ${month.start.slice(0, 7)} in ${seconds(performance.now() - seeding)}`);
    await db.close();

    child = await spawnBuiltServer({
      PORT: '0',
      DATA_DIR: path.join(folder, 'data'),
      SEED_DEMO_ORG: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      // On a loaded machine a request of 100 finalizations may outlast the default 30 s deadline.
      REQUEST_TIMEOUT_MS: process.env.BENCH_REQUEST_TIMEOUT_MS ?? '30000',
      SMTP_URL: sink.url,
      EMAIL_FROM: 'billing@valley-pools.example',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    const url = /listening on (http:\/\/\S+)/.exec(await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000))![1]!;
    // The server's warnings and errors, as they come (read, so its output never blocks it).
    child.stdout!.on('data', (chunk: Buffer) => process.stdout.write(`  server: ${chunk}`));
    child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`  server: ${chunk}`));
    child.on('exit', (code, signal) => console.log(`  server exited (${code ?? signal})`));
    const pid = child.pid!;
    await graphql(url, admin, 'mutation($s: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $s) { invoicePrefix } }', {
      s: { autoSendInvoices: true, chemicalBilling: 'UNIT_PRICE', invoiceDueDays: 30, invoicePrefix: 'VP-' },
    });

    // The month's run.
    let cpu = await cpuSeconds(pid);
    let started = performance.now();
    const { generateInvoices: run } = await graphql<{ generateInvoices: { id: string } }>(url, admin, 'mutation($i: GenerateInvoicesInput!) { generateInvoices(input: $i) { id } }', {
      i: { periodStart: month.start, periodEnd: month.end },
    });
    let operation = { status: 'QUEUED', succeeded: 0, skipped: 0, failed: 0 };
    await until('the month\'s run', RUN_DEADLINE_MS, async () => {
      operation = (await graphql<{ bulkOperation: typeof operation }>(url, admin, 'query($id: ID!) { bulkOperation(id: $id) { status succeeded skipped failed } }', { id: run.id })).bulkOperation;
      return !['QUEUED', 'RUNNING'].includes(operation.status);
    });
    const draftsMs = performance.now() - started;
    const draftsCpu = (await cpuSeconds(pid)) - cpu;
    console.log(`  drafts: ${operation.status}, ${operation.succeeded} billed, ${operation.skipped} skipped, ${operation.failed} failed in ${seconds(draftsMs)} (server CPU ${draftsCpu.toFixed(1)} s; target 60 s)`);

    // Finalizing every draft, in batches of ids; each finalization queues its email.
    const ids = await draftIds(url, admin);
    cpu = await cpuSeconds(pid);
    started = performance.now();
    let finalized = 0;
    const reads = readWhile(url, admin);
    for (let i = 0; i < ids.length; i += FINALIZE_BATCH) {
      const answer = await graphql<{ finalizeInvoices: { id: string }[] }>(url, admin, 'mutation($i: FinalizeInvoicesInput!) { finalizeInvoices(input: $i) { id } }', { i: { ids: ids.slice(i, i + FINALIZE_BATCH) } });
      finalized += answer.finalizeInvoices.length;
    }
    const finalizeMs = performance.now() - started;
    const finalizeCpu = (await cpuSeconds(pid)) - cpu;
    console.log(`  finalized ${finalized} in ${seconds(finalizeMs)} (server CPU ${finalizeCpu.toFixed(1)} s; target 60 s); ${sink.count()} emails sent meanwhile`);

    // The emails drain through the outbox.
    let rssSum = 0;
    let rssN = 0;
    await until('the invoice emails', DRAIN_DEADLINE_MS, async () => {
      rssSum += await rssMb(pid);
      rssN++;
      return sink.count() >= finalized;
    }, 1000);
    const drainMs = performance.now() - started;
    const latencies = await reads.stop();
    const drainCpu = (await cpuSeconds(pid)) - cpu;
    console.log(
      `  ${sink.count()} invoice emails with PDFs (${(sink.bytes() / 2 ** 20).toFixed(0)} MiB) delivered ${seconds(drainMs)} after finalizing began (server CPU ${drainCpu.toFixed(1)} s; target 15 min)`,
    );
    console.log(
      `  GraphQL read (open invoices, first 20) while finalizing and draining: p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms over ${latencies.length} reads; server RSS mean ${(rssSum / Math.max(1, rssN)).toFixed(0)} MiB, peak ${(await peakRssMb(pid)).toFixed(0)} MiB`,
    );
  } finally {
    child?.kill('SIGTERM');
    if (child) await new Promise((resolve) => child!.once('exit', resolve));
    await sink.close();
    await dropDatabase();
    await rm(folder, { recursive: true, force: true });
  }
}
