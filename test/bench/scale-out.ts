import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { LiveStream } from '../../client-sdk/replication/stream.js';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import { openStore } from '../../server/storage/open.js';
import { spawnBuiltServer, waitForOutput } from '../support/child.js';
import { BENCH_OFFICE_WINDOW_DAYS, seedOrganizationData } from './seed.js';

/**
 * Scale-out: 1, 2 and 3 server processes on one PostgreSQL, with devices spread across
 * them. Each round, DEVICES devices (one token each) pull every visit at once while a writer
 * commits a visit every 20 ms straight into PostgreSQL and one live stream per process times how
 * long each commit takes to reach it. Devices are plain HTTP pulls (gzip, JSON parsed, no
 * replica), so the bench process spends as little of the machine as a client can.
 */
const VISITS = Number(process.env.BENCH_SCALE_VISITS ?? 20_000);
const DEVICES = Number(process.env.BENCH_SCALE_DEVICES ?? 6);
const PAGE = 2000;
const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Round {
  processes: number;
  seconds: number;
  visitsPerSecond: number;
  p50: number;
  p99: number;
  missed: number;
}

export async function benchScaleOut(postgresUrl: string): Promise<void> {
  const name = `pool_bench_scale_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const target = new URL(postgresUrl);
  target.pathname = `/${name}`;
  const databaseUrl = target.toString();
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-scale-'));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  try {
    const db = await openStore({ databaseUrl, officeWindowDays: BENCH_OFFICE_WINDOW_DAYS });
    const { organization } = await provisionOrganization(db, { name: 'Scale Bench' });
    await seedOrganizationData(db, organization.id, { customers: 2000, services: VISITS, items: 100, noteLength: 600 });
    const tokens: string[] = [];
    for (let i = 0; i <= DEVICES; i++) tokens.push((await issueToken(db, organization.id, { name: `device ${i}`, role: 'OFFICE' })).token);
    await db.close();
    const rounds: Round[] = [];
    for (const processes of [1, 2, 3]) {
      const servers: { url: string; child: ChildProcess }[] = [];
      // One after another: each start builds the bundle, and builds must not overlap.
      for (let i = 0; i < processes; i++) servers.push(await startServer(databaseUrl, path.join(folder, `data-${i}`)));
      try {
        rounds.push(await round(servers.map((s) => s.url), tokens, pool, organization.id));
      } finally {
        await Promise.all(servers.map(stopServer));
      }
    }
    console.log(`\nScale-out on PostgreSQL: ${DEVICES} devices pulling ${VISITS} visits each at once, a visit committed every 20 ms meanwhile`);
    console.log('| server processes | all devices in sync | visits served per second | live latency to every process | missed |');
    console.log('|---|---|---|---|---|');
    for (const r of rounds) {
      console.log(`| ${r.processes} | ${r.seconds.toFixed(2)} s | ${Math.round(r.visitsPerSecond)} | p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms | ${r.missed} |`);
    }
  } finally {
    await pool.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    await rm(folder, { recursive: true, force: true });
  }
}

async function startServer(databaseUrl: string, dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = await spawnBuiltServer({ PORT: '0', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn', BULK_WORKER: 'false', SYNC_OFFICE_WINDOW_DAYS: String(BENCH_OFFICE_WINDOW_DAYS) });
  const output = await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000);
  return { url: /listening on (http:\/\/\S+)/.exec(output)![1]!, child };
}

async function stopServer({ child }: { child: ChildProcess }): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('close', r));
}

/** The devices' pulls and the writer's commits at the same time; the live streams time the commits. */
async function round(urls: string[], tokens: string[], pool: pg.Pool, orgId: string): Promise<Round> {
  const seenAt = new Map<string, number[]>();
  const streams = urls.map((url) => {
    let alive!: () => void;
    const up = new Promise<void>((resolve) => (alive = resolve));
    const stream = new LiveStream(
      { baseUrl: url, token: tokens[DEVICES]! },
      {
        collections: ['services'],
        onStatus: (connected) => connected && alive(),
        onEvent: (event) => {
          if (event === 'RESYNC') return;
          const now = performance.now();
          for (const doc of event.documents as { id: string }[]) seenAt.get(doc.id)?.push(now);
        },
      },
    );
    stream.start();
    return { stream, up };
  });
  await Promise.all(streams.map((s) => s.up));
  const committed = new Map<string, number>();
  let writing = true;
  const writer = (async () => {
    while (writing) {
      const id = `scale-${randomBytes(6).toString('hex')}`;
      seenAt.set(id, []);
      await pool.query(`insert into services (org_id, id, notes, photos) values ($1, $2, 'live', '[]')`, [orgId, id]);
      committed.set(id, performance.now());
      await sleep(20);
    }
  })();
  const start = performance.now();
  const served = await Promise.all(Array.from({ length: DEVICES }, (_, i) => pullEverything(urls[i % urls.length]!, tokens[i]!)));
  const seconds = (performance.now() - start) / 1000;
  writing = false;
  await writer;
  await sleep(1000); // the last commits reach the streams
  await Promise.all(streams.map((s) => s.stream.stop()));
  const latencies: number[] = [];
  let missed = 0;
  for (const [id, at] of committed) {
    const seen = seenAt.get(id)!;
    if (seen.length < urls.length) missed += 1;
    else latencies.push(Math.max(...seen) - at);
  }
  return { processes: urls.length, seconds, visitsPerSecond: served.reduce((a, b) => a + b, 0) / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), missed };
}

/** A device's initial pull of every visit; returns how many it received. */
async function pullEverything(url: string, token: string): Promise<number> {
  let checkpoint = 0;
  let total = 0;
  for (;;) {
    const res = await fetch(`${url}/sync/services/pull?checkpoint=${checkpoint}&limit=${PAGE}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`pull answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { documents: unknown[]; checkpoint: { seq: number } };
    total += page.documents.length;
    checkpoint = page.checkpoint.seq;
    if (page.documents.length < PAGE) return total;
  }
}
