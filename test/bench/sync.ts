import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { build } from 'esbuild';
import pg from 'pg';
import { filter, firstValueFrom } from 'rxjs';
import { removeRxDatabase } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { createPoolClient } from '../../client-sdk/index.js';
import { issueToken } from '../../server/operations/auth.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import { openStore } from '../../server/storage/open.js';
import { finished, spawnBuiltServer, spawnTs, waitForOutput, type Finished } from '../support/child.js';
import { benchDatabase } from './bench-database.js';
import { BENCH_OFFICE_WINDOW_DAYS, seedOrganizationData } from './seed.js';
import { startThrottledLink } from './throttled-link.js';
import http from 'node:http';

/**
 * The sync benchmark. The server runs in its own process (as in production) over a seeded
 * store: 50,000 visits of about 1 KB, 5,000 customers, 500 items. This process is the device:
 * the SDK's client (createPoolClient) on RxDB memory replicas.
 */
const VISITS = Number(process.env.BENCH_VISITS ?? 50_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Collects what earlier runs left in this (device) process, so each run pays only for itself. */
const settle = () => (globalThis as { gc?: () => void }).gc?.();
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

export interface RunningServer {
  url: string;
  orgId: string;
  /** Direct connection to the server's PostgreSQL (null with PGlite, which the server owns). */
  pool: pg.Pool | null;
  token: string;
  officeToken: string;
  child: ChildProcess;
  peakRssMb(): Promise<number>;
  rssMb(): Promise<number>;
  stop(): Promise<void>;
}

/** Seeds a store, then starts `server/main.ts` on it in a child process. */
export async function startSeededServer(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<RunningServer> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-sync-'));
  const { url: databaseUrl, dropDatabase } = engine === 'postgres' ? await benchDatabase(postgresUrl, 'pool_bench_sync') : { url: undefined, dropDatabase: async () => {} };
  const db = await openStore({ databaseUrl, dataDir: path.join(folder, 'data'), officeWindowDays: BENCH_OFFICE_WINDOW_DAYS });
  const { organization, token: officeToken } = await provisionOrganization(db, { name: 'Sync Bench' });
  const { token } = await issueToken(db, organization.id, { name: 'Bench device', role: 'OFFICE' });
  const start = performance.now();
  await seedOrganizationData(db, organization.id, { customers: 5000, services: VISITS, items: 500, noteLength: 600 });
  console.log(`seeded ${VISITS} visits, 5000 customers, 500 items in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  await db.close();

  const child = await spawnBuiltServer({
    PORT: '0',
    DATA_DIR: path.join(folder, 'data'),
    SEED_DEMO_ORG: 'false',
    LOG_LEVEL: 'warn',
    // The idle-subscriber measure opens 1,000 streams with one token (1,000 devices would each
    // have their own); the per-token cap is for abuse, not for this.
    SYNC_MAX_STREAMS_PER_TOKEN: '1000',
    SYNC_OFFICE_WINDOW_DAYS: String(BENCH_OFFICE_WINDOW_DAYS),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const output = await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000);
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 2 }) : null;
  return {
    url,
    orgId: organization.id,
    pool,
    token,
    officeToken,
    child,
    peakRssMb: () => procStatusMb(child.pid!, 'VmHWM'),
    rssMb: () => procStatusMb(child.pid!, 'VmRSS'),
    stop: async () => {
      await pool?.end();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
      await dropDatabase();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export async function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024;
}

/**
 * A device in a process of its own (test/bench/device.ts): its initial sync and peak RSS. It runs
 * bundled, as an app ships the SDK: run through tsx, the TypeScript loader's own thread added
 * 10-30 MB to the process (measured side by side, 2026-11-23).
 */
export async function deviceProcess(server: RunningServer, pullBatchSize?: number): Promise<{ seconds: number; visits: number; peakRssMb: number }> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-device-'));
  const bundle = path.join(folder, 'device.mjs');
  try {
    await build({ entryPoints: ['test/bench/device.ts'], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: bundle, logLevel: 'warning' });
    const env = { ...process.env, ...(pullBatchSize ? { PULL_BATCH_SIZE: String(pullBatchSize) } : {}) };
    const run = await finished(spawn(process.execPath, [bundle, server.url, server.token], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    return parseDeviceRun(run);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function parseDeviceRun(run: Finished): { seconds: number; visits: number; peakRssMb: number } {
  if (run.code !== 0) throw new Error(`device process failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { seconds: number; visits: number; peakRssMb: number };
}

/** A device: the SDK's client on RxDB's memory storage, replicating visits only. */
async function replica(server: RunningServer, collections: string[], token = server.token) {
  const name = `bench${randomBytes(4).toString('hex')}`;
  const storage = getRxStorageMemory();
  const client = await createPoolClient({ baseUrl: server.url, token, collections, name, storage: storage as never, pullBatchSize: 5000, pushBatchSize: 1000 });
  client.sync.start();
  return {
    client,
    db: client.db,
    inSync: () => client.sync.awaitInSync(),
    close: async () => {
      await client.close();
      // Removed as well: RxDB's memory storage keeps a closed database's data for a reopen, and
      // every run's 50,000 visits would stay in this process and slow the runs after it.
      await removeRxDatabase(name, storage as never);
    },
  };
}

export async function initialSync(server: RunningServer): Promise<number> {
  settle();
  const start = performance.now();
  const r = await replica(server, ['services']);
  await r.inSync();
  const seconds = (performance.now() - start) / 1000;
  const count = await r.db.collections.services!.count().exec();
  await r.close();
  if (count !== VISITS) throw new Error(`initial sync delivered ${count} of ${VISITS} visits`);
  return seconds;
}

/** The server's share of an initial sync: every page pulled over HTTP and parsed, no replica. */
async function pullOnly(server: RunningServer, pageSize: number): Promise<number> {
  settle();
  const start = performance.now();
  let checkpoint = 0;
  let total = 0;
  for (;;) {
    const res = await fetch(`${server.url}/sync/services/pull?checkpoint=${checkpoint}&limit=${pageSize}`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    const body = (await res.json()) as { documents: unknown[]; checkpoint: { seq: number } };
    total += body.documents.length;
    checkpoint = body.checkpoint.seq;
    if (body.documents.length < pageSize) break;
  }
  if (total !== VISITS) throw new Error(`pulled ${total} of ${VISITS}`);
  return (performance.now() - start) / 1000;
}

/** Bytes on the wire for every page of an initial sync, as each encoding would send them. */
async function wireBytesPerVisit(server: RunningServer, pageSize: number): Promise<Record<'identity' | 'gzip' | 'br', number>> {
  const result = { identity: 0, gzip: 0, br: 0 };
  for (const encoding of ['identity', 'gzip', 'br'] as const) {
    let checkpoint = 0;
    for (;;) {
      const { bytes, body } = await rawGet(`${server.url}/sync/services/pull?checkpoint=${checkpoint}&limit=${pageSize}`, server.token, encoding);
      result[encoding] += bytes;
      if (body === null) break;
      checkpoint = body.checkpoint;
      if (body.count < pageSize) break;
    }
  }
  return { identity: result.identity / VISITS, gzip: result.gzip / VISITS, br: result.br / VISITS };
}

/** A GET whose body is counted as it arrives (node:http decodes nothing); the page is decoded to follow its checkpoint. */
function rawGet(url: string, token: string, encoding: string): Promise<{ bytes: number; body: { checkpoint: number; count: number } | null }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', async () => {
          const raw = Buffer.concat(chunks);
          const zlib = await import('node:zlib');
          const enc = res.headers['content-encoding'];
          const text = (enc === 'br' ? zlib.brotliDecompressSync(raw) : enc === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8');
          const page = JSON.parse(text) as { documents: unknown[]; checkpoint: { seq: number } };
          resolve({ bytes: raw.length, body: { checkpoint: page.checkpoint.seq, count: page.documents.length } });
        });
      })
      .on('error', reject);
  });
}

/** The initial sync through a 20 Mbit/s link with 50 ms round trips, with and without compression. */
async function throttledInitialSync(server: RunningServer, compress: boolean): Promise<{ seconds: number; megabytes: number }> {
  const link = await startThrottledLink(server.url, { mbps: 20, rttMs: 50, compress });
  try {
    settle();
    const start = performance.now();
    const r = await replica({ ...server, url: link.url }, ['services']);
    const statuses: string[] = [];
    const watching = r.client.sync.status$.subscribe((s) => statuses.push(`${new Date().toISOString().slice(11, 23)} ${JSON.stringify(s)}`));
    await r.client.sync.awaitInSync({ timeoutMs: 180_000 }).catch((error: unknown) => {
      // Say what the device saw, so a stall can be told from a slow link.
      console.error(statuses.slice(-20).join('\n'));
      throw error;
    });
    watching.unsubscribe();
    const seconds = (performance.now() - start) / 1000;
    const count = await r.db.collections.services!.count().exec();
    await r.close();
    if (count !== VISITS) throw new Error(`throttled sync delivered ${count} of ${VISITS} visits`);
    return { seconds, megabytes: link.bytesDown() / 1e6 };
  } finally {
    await link.close();
  }
}

/** Local writes of each offline push (1,000 recorded + 1,000 edited), in ms. */
export const localWrites: number[] = [];

/** 1,000 visits recorded and 1,000 edited offline through the SDK, then the time to push them all. */
export async function pushOffline(server: RunningServer): Promise<number> {
  const r = await replica(server, ['services']);
  await r.inSync();
  await r.client.sync.stop();
  const some = await r.db.collections.services!.find({ limit: 1000 }).exec();
  const writing = performance.now();
  for (let i = 0; i < 1000; i++) await r.client.recordVisit({ notes: `offline visit ${i}` });
  for (const d of some) await r.client.updateVisit(d.id as string, { waterLevel: 'HIGH', notes: `edited ${d.id}` });
  localWrites.push(performance.now() - writing);
  settle();
  const start = performance.now();
  r.client.sync.start();
  await r.inSync();
  const seconds = (performance.now() - start) / 1000;
  await r.close();
  return seconds;
}

/**
 * 200 visits written 20 ms apart; for each, the time until it is visible in a subscribed replica.
 * On PostgreSQL the bench inserts directly and times from the commit's acknowledgement; with
 * PGlite (owned by the server process) it pushes through the API and times from the answer, which
 * the server sends after its commit.
 */
export async function liveLatency(
  server: RunningServer,
  idleSubscribers: number,
): Promise<{ p50: number; p99: number; missed: number; rssGrowthMb: number; idleEvents: { fewest: number; most: number } | null }> {
  const rssBefore = await server.rssMb();
  const idle = idleSubscribers ? spawnTs('test/bench/idle-streams.ts', [server.url, server.officeToken, String(idleSubscribers)], {}) : null;
  let idleOutput = '';
  idle?.stdout!.on('data', (chunk) => (idleOutput += chunk));
  if (idle) await waitForOutput(idle, /ready/, 120_000);
  const rssGrowthMb = (await server.rssMb()) - rssBefore;
  const r = await replica(server, ['services']);
  await r.inSync();
  await sleep(200);
  const visits = r.db.collections.services!;
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; i < 200; i++) {
    const id = `live-${randomBytes(6).toString('hex')}`;
    let committed = 0;
    const seen = firstValueFrom(visits.findOne(id).$.pipe(filter((d) => d !== null))).then(() => performance.now());
    if (server.pool) {
      await server.pool.query(`insert into services (org_id, id, notes, photos) values ($1, $2, 'live', '[]')`, [server.orgId, id]);
    } else {
      await fetch(`${server.url}/sync/services/push`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.officeToken}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ newDocumentState: { id, notes: 'live', photos: [] } }]),
      });
    }
    committed = performance.now();
    pending.push(Promise.race([seen.then((at) => void latencies.push(Math.max(0, at - committed))), sleep(5000)]).then(() => {}));
    await sleep(20);
  }
  await Promise.all(pending);
  await r.close();
  let idleEvents: { fewest: number; most: number } | null = null;
  if (idle) {
    idle.kill('SIGTERM');
    await new Promise((resolve) => idle.once('close', resolve));
    idleEvents = JSON.parse(idleOutput.trim().split('\n').at(-1)!) as { fewest: number; most: number };
  }
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), missed: 200 - latencies.length, rssGrowthMb, idleEvents };
}

/** Progress on stderr, so a run that stalls says where. */
const phase = (name: string) => console.error(`[sync bench ${new Date().toISOString().slice(11, 19)}] ${name}`);

export async function benchSync(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<void> {
  const server = await startSeededServer(engine, postgresUrl);
  try {
    // The plain pulls first, while this process's heap is small: after five replicas of 50,000
    // visits its own JSON parsing, which this figure includes, slowed them by a third.
    const pulls: number[] = [];
    for (let i = 0; i < 3; i++) pulls.push(await pullOnly(server, 5000));
    const initial: number[] = [];
    for (let i = 0; i < 5; i++) initial.push(await initialSync(server));
    const serverRssAfterInitial = await server.peakRssMb();
    // Before the pushes below, which add visits.
    phase('bytes on the wire');
    const wire = await wireBytesPerVisit(server, 5000);
    phase('throttled link, uncompressed');
    const slowPlain = await throttledInitialSync(server, false);
    phase('throttled link, compressed');
    const slowCompressed = await throttledInitialSync(server, true);
    phase('device process');
    const device = await deviceProcess(server);
    const deviceBigPages = await deviceProcess(server, 5000);
    phase('pushes');
    const pushes: number[] = [];
    for (let i = 0; i < 5; i++) pushes.push(await pushOffline(server));
    phase('live latency');
    const live = await liveLatency(server, 0);
    const liveIdle = await liveLatency(server, 100);
    const liveThousand = await liveLatency(server, 1000);
    const serverRss = await server.peakRssMb();
    const clientRss = process.resourceUsage().maxRSS / 1024;
    console.log(`\nSync on ${engine === 'pglite' ? 'PGlite (server process, folder store)' : 'PostgreSQL'}`);
    console.log('| measure | result |');
    console.log('|---|---|');
    console.log(`| initial sync of ${VISITS} visits (median of 5) | ${median(initial).toFixed(2)} s (${Math.round(VISITS / median(initial))} docs/s; runs ${initial.map((s) => s.toFixed(2)).join(', ')}) |`);
    console.log(`| the same pulled over HTTP without a replica (server share; median of 3) | ${median(pulls).toFixed(2)} s |`);
    console.log(`| bytes on the wire per synced visit: uncompressed / gzip / brotli | ${wire.identity.toFixed(0)} / ${wire.gzip.toFixed(0)} / ${wire.br.toFixed(0)} B (${(wire.identity / wire.gzip).toFixed(1)}x / ${(wire.identity / wire.br).toFixed(1)}x smaller) |`);
    console.log(`| initial sync through a 20 Mbit/s link with 50 ms round trips: uncompressed -> gzip (what the SDK asks for) | ${slowPlain.seconds.toFixed(1)} s (${slowPlain.megabytes.toFixed(1)} MB) -> ${slowCompressed.seconds.toFixed(1)} s (${slowCompressed.megabytes.toFixed(1)} MB) |`);
    console.log(`| on the device, offline: 1,000 visits recorded + 1,000 edited (local writes, median of 5) | ${median(localWrites.splice(0)).toFixed(0)} ms |`);
    console.log(`| push of 1,000 new + 1,000 edited visits (median of 5) | ${median(pushes).toFixed(2)} s (runs ${pushes.map((s) => s.toFixed(2)).join(', ')}) |`);
    console.log(`| live latency, commit -> visible in a subscribed replica, 200 writes 20 ms apart | p50 ${live.p50.toFixed(1)} ms, p99 ${live.p99.toFixed(1)} ms, missed ${live.missed} |`);
    const idleGot = (live: typeof liveIdle) => (live.idleEvents ? `; each idle stream got ${live.idleEvents.fewest === live.idleEvents.most ? `all ${live.idleEvents.most}` : `${live.idleEvents.fewest}-${live.idleEvents.most}`} change events` : '');
    console.log(`| same with 100 idle subscribers attached | p50 ${liveIdle.p50.toFixed(1)} ms, p99 ${liveIdle.p99.toFixed(1)} ms, missed ${liveIdle.missed}${idleGot(liveIdle)} |`);
    console.log(`| same with 1,000 idle subscribers attached | p50 ${liveThousand.p50.toFixed(1)} ms, p99 ${liveThousand.p99.toFixed(1)} ms, missed ${liveThousand.missed}${idleGot(liveThousand)}; server RSS +${liveThousand.rssGrowthMb.toFixed(0)} MB for the 1,000 streams |`);
    console.log(`| server peak RSS (during initial syncs / whole run) | ${serverRssAfterInitial.toFixed(0)} MB / ${serverRss.toFixed(0)} MB |`);
    console.log(`| device: a process that only syncs the ${device.visits} visits (SDK defaults: pulls of 1,000; RxDB memory storage) | ${device.seconds.toFixed(2)} s, peak RSS ${device.peakRssMb.toFixed(0)} MB |`);
    console.log(`| the same with pulls of 5,000 | ${deviceBigPages.seconds.toFixed(2)} s, peak RSS ${deviceBigPages.peakRssMb.toFixed(0)} MB |`);
    console.log(`| bench process peak RSS (every run above) | ${clientRss.toFixed(0)} MB |`);
  } finally {
    await server.stop();
  }
}
