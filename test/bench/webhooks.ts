import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { provisionOrganization } from '../../server/operations/organization.js';
import { issueToken } from '../../server/operations/auth.js';
import type { Database } from '../../server/storage/db.js';
import { DROP_EVENT_TRIGGERS, eventSql } from '../../server/storage/event-sql.js';
import { openStore } from '../../server/storage/open.js';
import { spawnBuiltServer, waitForOutput } from '../support/child.js';
import { startTestServer } from '../support/server.js';
import { benchDatabase } from './bench-database.js';
import { BENCH_OFFICE_WINDOW_DAYS, seedOrganizationData } from './seed.js';

/**
 * `BENCH_ONLY=webhooks npm run bench`: what events and webhooks cost and how fast they arrive.
 *
 * 1. Delivery latency: the server as `npm start` runs it (the built bundle, its own process) with
 *    10 endpoints on receivers in this process (the loopback); 100 changes a second for a minute
 *    (WEBHOOK_BENCH_SECONDS, WEBHOOK_BENCH_RATE), each a customer inserted and committed by this
 *    process; from the commit's acknowledgement to the receiver holding the delivery (it answers
 *    204 at once): p50, p99, max, and every delivery counted (nothing lost, nothing doubled).
 *    On PostgreSQL; with PGlite (the server owns the store) the changes go through GraphQL and are
 *    timed from the mutation's answer.
 * 2. What events cost the writes that make them: a sync push of 1,000 new + 1,000 edited visits
 *    and a GraphQL mutation (updateCustomer), on one seeded store, with the event triggers
 *    installed and dropped in turn (the store as it was before events), in blocks of with,
 *    without, without, with, so the machine's drift and the store's growth fall on both alike; and
 *    the event trigger's own share of the statements (EXPLAIN ANALYZE). The organization has an
 *    endpoint (the triggers' notify path runs), no worker delivers.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;
const median = (values: number[]) => percentile(values, 0.5);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' / ');

/** CPU seconds a process has used (user + system), from /proc. */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const ENDPOINTS = 10;
const SECONDS = Number(process.env.WEBHOOK_BENCH_SECONDS ?? 60);
const RATE = Number(process.env.WEBHOOK_BENCH_RATE ?? 100);

interface Receivers {
  url: string;
  /** endpoint path -> customer id -> receipt times. */
  got: Map<string, Map<string, number[]>>;
  close(): Promise<void>;
}

async function startReceivers(): Promise<Receivers> {
  const got = new Map<string, Map<string, number[]>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: string } };
      if (event.type === 'customer.created') {
        const byId = got.get(req.url!) ?? new Map<string, number[]>();
        got.set(req.url!, byId);
        byId.set(event.data.id, [...(byId.get(event.data.id) ?? []), at]);
      }
      res.writeHead(204).end();
    });
  });
  // Node's default: connections kept 5 s between requests, as most receivers keep them (a hint of
  // 1 s or less makes Node's client close each connection at once, so nothing is kept).
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

async function graphql(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** Part 1: commit -> delivered, 10 endpoints, RATE changes a second for SECONDS. */
async function deliveryLatency(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-webhooks-'));
  const database = engine === 'postgres' ? await benchDatabase(postgresUrl, 'pool_bench_webhooks') : null;
  const db = await openStore({ databaseUrl: database?.url, dataDir: path.join(folder, 'data') });
  const { organization, token } = await provisionOrganization(db, { name: 'Webhook Bench' });
  await seedOrganizationData(db, organization.id, { customers: 5_000, services: 20_000 });
  await db.close();
  const receivers = await startReceivers();
  let server: ChildProcess | null = null;
  const pool = database ? new pg.Pool({ connectionString: database.url, max: 10 }) : null;
  try {
    server = await spawnBuiltServer({
      PORT: '0',
      DATA_DIR: path.join(folder, 'data'),
      DATABASE_URL: database?.url ?? '',
      SEED_DEMO_ORG: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      LOG_LEVEL: 'warn',
    });
    const out = await waitForOutput(server, /listening on (http:\/\/[\d.]+:\d+)/, 180_000);
    server.stdout!.resume();
    const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
    for (let i = 0; i < ENDPOINTS; i++) await graphql(url, token, `mutation($u: String!) { createWebhookEndpoint(input: {url: $u}) { secret } }`, { u: `${receivers.url}/e${i}` });
    const committed = new Map<string, number>();
    const total = Math.round(SECONDS * RATE);
    const loadBefore = load();
    const serverCpuBefore = await cpuSeconds(server.pid!);
    const benchCpuBefore = process.cpuUsage();
    const start = performance.now();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const id = `bench-${i}`;
      const write = pool
        ? pool.query(`insert into customers (org_id, id, last_name) values ($1, $2, 'Bench')`, [organization.id, id])
        : graphql(url, token, `mutation($id: ID!) { createCustomer(input: {lastName: "Bench", notes: $id}) { id } }`, { id }).then((d) => void committed.set(d.createCustomer.id, performance.now()));
      writes.push(write.then(() => void (pool && committed.set(id, performance.now()))));
    }
    await Promise.all(writes);
    const wrote = (performance.now() - start) / 1000;
    const expected = total * ENDPOINTS;
    const delivered = () => [...receivers.got.values()].reduce((n, byId) => n + byId.size, 0);
    for (let waited = 0; delivered() < expected && waited < 120_000; waited += 200) await sleep(200);
    const serverCpu = (await cpuSeconds(server.pid!)) - serverCpuBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    await sleep(2_000);
    const latencies: number[] = [];
    let doubled = 0;
    for (const byId of receivers.got.values()) {
      for (const [id, times] of byId) {
        doubled += times.length - 1;
        const at = committed.get(id);
        if (at !== undefined) latencies.push(Math.max(0, times[0]! - at));
      }
    }
    const lost = expected - delivered();
    const name = engine === 'postgres' ? 'PostgreSQL' : 'PGlite (GraphQL writes)';
    console.log(`\nWebhook delivery, ${name}: ${ENDPOINTS} endpoints, ${total} changes in ${wrote.toFixed(1)} s (${(total / wrote).toFixed(0)}/s), load ${loadBefore} -> ${load()}`);
    console.log('| engine | deliveries | commit -> receiver p50 | p99 | max | lost | doubled |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(`| ${name} | ${latencies.length} of ${expected} | ${median(latencies).toFixed(1)} ms | ${percentile(latencies, 0.99).toFixed(1)} ms | ${Math.max(...latencies).toFixed(1)} ms | ${lost} | ${doubled} |`);
    console.log(
      `CPU until the last delivery: the server ${serverCpu.toFixed(1)} s (${((serverCpu * 1000) / expected).toFixed(2)} ms a delivery), this process (writer and receivers) ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} s`,
    );
  } finally {
    server?.kill('SIGTERM');
    if (server) await new Promise((r) => server!.once('close', r));
    await pool?.end();
    await receivers.close();
    await database?.dropDatabase();
    await rm(folder, { recursive: true, force: true });
  }
}

/** Part 2: a push and a mutation, with and without the event triggers, on one store. */
async function writeCost(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-event-cost-'));
  const database = engine === 'postgres' ? await benchDatabase(postgresUrl, 'pool_bench_event_cost') : null;
  let db: Database | null = null;
  try {
    db = await openStore({ databaseUrl: database?.url, dataDir: path.join(folder, 'data'), officeWindowDays: BENCH_OFFICE_WINDOW_DAYS });
    const { organization, token } = await provisionOrganization(db, { name: 'Event Cost Bench' });
    await seedOrganizationData(db, organization.id, { customers: 5_000, services: 20_000, noteLength: 600 });
    const device = (await issueToken(db, organization.id, { name: 'Bench device', role: 'OFFICE' })).token;
    const server = await startTestServer(db, { http: { rateLimitPerMinute: 0 }, syncBodyLimitBytes: 64 * 1024 * 1024 });
    try {
      await graphql(server.url, token, `mutation { createWebhookEndpoint(input: {url: "https://hooks.example.com/bench"}) { secret } }`);
      // Blocks of four rounds, with, without, without, with (ABBA): the store grows a little with
      // every round, and a trend then falls on both sides of each block alike.
      const blocks = Number(process.env.WEBHOOK_BENCH_BLOCKS ?? 3);
      const order = Array.from({ length: blocks }, () => ['on', 'off', 'off', 'on'] as const).flat();
      const results = { on: { push: [] as number[], mutation: [] as number[] }, off: { push: [] as number[], mutation: [] as number[] } };
      let round = 0;
      const customerIds = Array.from({ length: 5_000 }, (_, i) => `cust-${String(i + 1).padStart(7, '0')}`);
      const loadBefore = load();
      for (const events of order) {
        await db.exec(events === 'on' ? eventSql() : DROP_EVENT_TRIGGERS);
        results[events].push.push(await pushVisits(server.url, device, round++));
        const times: number[] = [];
        for (let i = 0; i < 60; i++) {
          const id = customerIds[(round * 97 + i * 31) % customerIds.length]!;
          const t = performance.now();
          await graphql(server.url, token, `mutation($id: ID!, $n: String) { updateCustomer(id: $id, input: {notes: $n}) { id } }`, { id, n: `note ${round} ${i}` });
          times.push(performance.now() - t);
        }
        results[events].mutation.push(median(times));
      }
      await db.exec(eventSql());
      const name = engine === 'postgres' ? 'PostgreSQL' : 'PGlite (folder store)';
      const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;
      /** Each block's with / without (its two rounds each way summed); the median block. */
      const blockRatio = (values: { on: number[]; off: number[] }) =>
        median(Array.from({ length: blocks }, (_, b) => (values.on[2 * b]! + values.on[2 * b + 1]!) / (values.off[2 * b]! + values.off[2 * b + 1]!)));
      const runs = (values: number[], digits: number) => values.map((t) => t.toFixed(digits)).join(', ');
      console.log(`\nWhat events cost their writes, ${name} (5,000 customers, 20,000 visits; ${blocks} blocks of with, without, without, with), load ${loadBefore} -> ${load()}`);
      console.log('| engine | write | without events | with events | with / without (median block) |');
      console.log('|---|---|---|---|---|');
      console.log(`| ${name} | sync push, 1,000 new + 1,000 edited visits (ms) | ${runs(results.off.push, 0)} | ${runs(results.on.push, 0)} | ${percent(blockRatio({ on: results.on.push, off: results.off.push }))} |`);
      console.log(`| ${name} | GraphQL updateCustomer, median of 60 (ms) | ${runs(results.off.mutation, 2)} | ${runs(results.on.mutation, 2)} | ${percent(blockRatio({ on: results.on.mutation, off: results.off.mutation }))} |`);
      await triggerShare(db, organization.id, name);
    } finally {
      await server.close();
    }
  } finally {
    await db?.close();
    await database?.dropDatabase();
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The event trigger's own time inside the statements a push and a mutation run (EXPLAIN ANALYZE
 * reports each trigger's time): less exposed to a loaded machine than end-to-end times, since both
 * parts of each figure come from one statement's run. Medians of 5.
 */
async function triggerShare(db: Database, orgId: string, name: string): Promise<void> {
  type Plan = { 'Execution Time': number; Triggers?: { 'Trigger Name': string; Time: number }[] };
  const run = async (sql: string, params: unknown[]) => {
    const { rows } = await db.query<{ 'QUERY PLAN': Plan[] }>(`explain (analyze, format json) ${sql}`, params);
    const plan = rows[0]!['QUERY PLAN'][0]!;
    return { total: plan['Execution Time'], events: (plan.Triggers ?? []).filter((t) => t['Trigger Name'].includes('_events_')).reduce((sum, t) => sum + t.Time, 0) };
  };
  const statements: [string, (i: number) => [string, unknown[]]][] = [
    ['insert 1,000 visits (one statement, as a push writes them)', (i) => [`insert into services (org_id, id, customer_id, notes, photos) select $1, 'share-${i}-' || g, 'cust-' || lpad((1 + g % 5000)::text, 7, '0'), 'offline visit', '[]' from generate_series(1, 1000) g`, [orgId]]],
    ['update 1,000 visits', (i) => [`update services set water_level = 'HIGH', notes = 'edited ${i}' where org_id = $1 and id like 'share-${i}-%'`, [orgId]]],
    ['update 1 customer', (i) => [`update customers set notes = 'share ${i}' where org_id = $1 and id = 'cust-0000042'`, [orgId]]],
  ];
  console.log(`\nThe event trigger inside a statement, ${name} (EXPLAIN ANALYZE, median of 5), load ${load()}`);
  console.log('| statement | statement | of which events | share |');
  console.log('|---|---|---|---|');
  const runs = new Map<string, { total: number; events: number }[]>();
  for (let i = 0; i < 5; i++) {
    for (const [label, make] of statements) runs.set(label, [...(runs.get(label) ?? []), await run(...make(i))]);
  }
  for (const [label, measured] of runs) {
    const total = median(measured.map((m) => m.total));
    const events = median(measured.map((m) => m.events));
    console.log(`| ${label} | ${total.toFixed(2)} ms | ${events.toFixed(2)} ms | ${((events / total) * 100).toFixed(1)}% |`);
  }
}

/** Pushes 1,000 new and 1,000 edited visits as an office device would (two pushes of 1,000), timed together. */
async function pushVisits(url: string, token: string, round: number): Promise<number> {
  const pulled = await fetch(`${url}/sync/services/pull?checkpoint=${round * 1500}&limit=1000`, { headers: { authorization: `Bearer ${token}` } });
  const existing = ((await pulled.json()) as { documents: Record<string, unknown>[] }).documents;
  const now = new Date().toISOString();
  const fresh = Array.from({ length: 1000 }, (_, i) => ({
    newDocumentState: { id: `pushed-${round}-${i}`, customerId: `cust-${String((i % 5000) + 1).padStart(7, '0')}`, notes: `offline visit ${i}`, photos: [], startTime: now, createdAt: now, updatedAt: now },
  }));
  const edited = existing.map((doc) => ({ assumedMasterState: doc, newDocumentState: { ...doc, waterLevel: 'HIGH', notes: `edited ${round}` } }));
  const start = performance.now();
  for (const rows of [fresh, edited]) {
    const res = await fetch(`${url}/sync/services/push`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(rows) });
    if (res.status !== 200) throw new Error(`push failed: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  return performance.now() - start;
}

/** WEBHOOK_BENCH_PARTS=latency or =cost runs one part; WEBHOOK_BENCH_PGLITE_DELIVERY=1 adds the latency on PGlite. */
export async function benchWebhooks(engines: readonly string[], postgresUrl: string | undefined): Promise<void> {
  const parts = (process.env.WEBHOOK_BENCH_PARTS ?? 'latency,cost').split(',');
  if (parts.includes('latency')) {
    if (postgresUrl && engines.includes('postgres')) await deliveryLatency('postgres', postgresUrl);
    if (engines.includes('pglite') && process.env.WEBHOOK_BENCH_PGLITE_DELIVERY === '1') await deliveryLatency('pglite');
  }
  if (parts.includes('cost')) {
    if (engines.includes('pglite')) await writeCost('pglite');
    if (postgresUrl && engines.includes('postgres')) await writeCost('postgres', postgresUrl);
  }
}
