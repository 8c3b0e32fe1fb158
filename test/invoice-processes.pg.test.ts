import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getBulk, waitForBulk } from './support/bulk.js';
import { endsWithThisProcess, spawnTs, waitForOutput } from './support/child.js';
import { createTestDatabase, engines, TEST_DATABASE_URL } from './support/engines.js';
import { pushChanges } from './support/sync.js';

/**
 * The month's run with the server run as users run it (`server/main.ts`): killed (SIGKILL) in the
 * middle of a run and started again, and (on PostgreSQL) two servers running two runs of the same
 * period at once. Either way every visit is billed by exactly one line, each customer has one
 * draft, and each run's result file lists every customer once. The two servers then finalize
 * overlapping batches of those drafts at once: each is numbered once, and the numbers have no gap.
 */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-invoice-runs-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ADMIN = 'invoice-processes-platform-admin';
const GENERATE = `mutation($input: GenerateInvoicesInput!) { generateInvoices(input: $input) { id status } }`;
const INVOICES = `query($after: String) { infiniteInvoices(first: 100, after: $after) {
  edges { node { id status number customerId lines { sourceType sourceId amount } } } pageInfo { hasNextPage endCursor } } }`;
const FINALIZE = `mutation($input: FinalizeInvoicesInput!) { finalizeInvoices(input: $input) { id number } }`;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Running {
  child: ChildProcess;
  url: string;
}

async function start(env: Record<string, string>): Promise<Running> {
  const child = endsWithThisProcess(
    spawnTs('server/main.ts', [], {
      HOST: '127.0.0.1',
      SEED_DEMO_ORG: 'false',
      PLATFORM_ADMIN_TOKEN: ADMIN,
      RATE_LIMIT_PER_MINUTE: '0',
      // One customer per chunk: a run lasts long enough to be killed in, and two runs interleave.
      BULK_CHUNK_SIZE: '1',
      BULK_POLL_MS: '100',
      ...env,
    }),
  );
  const out = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/, 150_000);
  child.stdout!.resume();
  return { child, url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]! };
}

function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

async function graphql(server: { url: string }, token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** An organization with `count` customers at 100 a visit, each with two completed visits in October 2026. */
async function company(server: { url: string }, name: string, count: number): Promise<{ token: string; customers: string[]; visits: string[] }> {
  const res = await fetch(`${server.url}/admin/organizations`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  const { token } = (await res.json()) as { token: string };
  const customers = Array.from({ length: count }, (_, i) => `${name.replace(/\W/g, '')}-c${String(i).padStart(3, '0')}`);
  const service = { typeId: null, technicianId: null, frequency: null, dayOfWeek: null, rate: 100, monthlyRate: null, startDate: null, notes: null };
  const pushedCustomers = await pushChanges(server, token, 'customers', customers.map((id, i) => ({ newDocumentState: { id, lastName: `Customer ${i}`, service } })));
  expect(pushedCustomers.status).toBe(200);
  const visits = customers.flatMap((c) => [`${c}-v1`, `${c}-v2`]);
  const docs = visits.map((id, i) => {
    const day = String(1 + (i % 28)).padStart(2, '0');
    return { newDocumentState: { id, customerId: id.replace(/-v\d$/, ''), startTime: `2026-10-${day}T15:00:00.000Z`, endTime: `2026-10-${day}T16:00:00.000Z`, photos: [] } };
  });
  expect((await pushChanges(server, token, 'services', docs)).status).toBe(200);
  return { token, customers, visits };
}

async function allInvoices(server: { url: string }, token: string) {
  const rows: { id: string; status: string; number: string | null; customerId: string; lines: { sourceType: string; sourceId: string }[] }[] = [];
  for (let after: string | null = null; ; ) {
    const page: any = (await graphql(server, token, INVOICES, { after })).infiniteInvoices;
    rows.push(...page.edges.map((e: { node: unknown }) => e.node));
    if (!page.pageInfo.hasNextPage) return rows;
    after = page.pageInfo.endCursor;
  }
}

/** Every visit on exactly one line, one draft per customer. */
async function expectBilledOnce(server: { url: string }, token: string, customers: string[], visits: string[]) {
  const invoices = await allInvoices(server, token);
  const sources = invoices.flatMap((i) => i.lines.map((l) => l.sourceId));
  expect(sources.sort()).toEqual([...visits].sort());
  expect(invoices.map((i) => i.customerId).sort()).toEqual([...customers].sort());
  expect(invoices.every((i) => i.status === 'DRAFT')).toBe(true);
}

/** The run's result file: customer id -> outcome, each customer once. */
async function results(server: { url: string }, token: string, operationId: string): Promise<Map<string, string>> {
  const op = await waitForBulk(server, token, operationId, 120_000);
  const rows = (await (await fetch(op.resultUrl)).text()).trim().split('\n').slice(1).map((line) => line.split(','));
  const byCustomer = new Map(rows.map((r) => [r[0]!, r[2]!]));
  expect(byCustomer.size).toBe(rows.length);
  return byCustomer;
}

describe.each(engines)('the month run across processes on %s', (engine) => {
  it('a server killed mid-run resumes it on restart; every visit is billed once and every customer listed once', { timeout: 400_000 }, async () => {
    const database = engine === 'postgres' ? await createTestDatabase() : null;
    const env = { PORT: String(await freePort()), DATA_DIR: path.join(tmp, `killed-${engine}`), DATABASE_URL: database?.url ?? '', BULK_STALE_MS: '600000' };
    let server = await start(env);
    try {
      const { token, customers, visits } = await company(server, 'Killed Pools', 80);
      const op = (await graphql(server, token, GENERATE, { input: { periodStart: '2026-10-01', periodEnd: '2026-10-31' } })).generateInvoices;
      let before = await getBulk(server, token, op.id);
      for (let i = 0; i < 800 && before.processed < 5; i++) {
        await new Promise((r) => setTimeout(r, 20));
        before = await getBulk(server, token, op.id);
      }
      expect(before.status).toBe('RUNNING');
      await kill(server.child);

      server = await start(env);
      const outcomes = await results(server, token, op.id);
      expect(await getBulk(server, token, op.id)).toMatchObject({ status: 'SUCCEEDED', total: 80, processed: 80, succeeded: 80 });
      expect([...outcomes.keys()].sort()).toEqual(customers);
      expect([...outcomes.values()].every((o) => o === 'BILLED')).toBe(true);
      await expectBilledOnce(server, token, customers, visits);
    } finally {
      await kill(server.child, 'SIGTERM');
      await database?.dropDatabase();
    }
  });
});

describe('the month run on two processes at once', () => {
  it.skipIf(!TEST_DATABASE_URL)('two servers running the same period at once bill every visit once, each customer by one of the runs; finalizing overlapping batches at once numbers each draft once, with no gap', { timeout: 400_000 }, async () => {
    const database = await createTestDatabase();
    const env = { PORT: '0', DATABASE_URL: database.url, DATA_DIR: path.join(tmp, 'two') };
    const servers: Running[] = [];
    try {
      servers.push(await start(env));
      servers.push(await start(env));
      const { token, customers, visits } = await company(servers[0]!, 'Twice Pools', 60);
      const input = { periodStart: '2026-10-01', periodEnd: '2026-10-31' };
      const ops = await Promise.all(servers.map((s, i) => graphql(s, token, GENERATE, { input: { ...input, idempotencyKey: `run-${i}` } })));
      const [a, b] = await Promise.all(ops.map((o, i) => results(servers[i]!, token, o.generateInvoices.id)));
      for (const outcomes of [a!, b!]) expect([...outcomes.keys()].sort()).toEqual(customers);
      // Each customer billed by exactly one of the two runs, skipped by the other (nothing left to bill).
      for (const c of customers) expect([a!.get(c), b!.get(c)].sort()).toEqual(['BILLED', 'SKIPPED']);
      await expectBilledOnce(servers[1]!, token, customers, visits);

      // Both servers finalize overlapping batches at once, in opposite orders, and one finalizes
      // all besides: every draft is numbered once, the numbers 1 to 60 with no gap.
      const drafts = (await allInvoices(servers[0]!, token)).map((i) => i.id).sort();
      const finalize = (s: Running, input: unknown) => graphql(s, token, FINALIZE, { input }).then((d) => d.finalizeInvoices as { id: string; number: string }[]);
      const [first, second] = await Promise.all([
        finalize(servers[0]!, { ids: drafts.slice(0, 40) }),
        finalize(servers[1]!, { ids: drafts.slice(20).reverse() }),
        finalize(servers[0]!, { all: true }),
      ]);
      const finalized = await allInvoices(servers[1]!, token);
      expect(finalized.every((i) => i.status === 'OPEN')).toBe(true);
      const numbers = finalized.map((i) => Number(i.number!.replace('INV-', ''))).sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      // An invoice both asked for is answered with the one number it was given.
      const numberOf = new Map(finalized.map((i) => [i.id, i.number]));
      for (const i of [...first!, ...second!]) expect(i.number).toBe(numberOf.get(i.id));
    } finally {
      await Promise.all(servers.map((s) => kill(s.child, 'SIGTERM')));
      await database.dropDatabase();
    }
  });
});
