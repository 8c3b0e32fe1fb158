/**
 * Zero's device: the Zero client on its in-memory store (`kvStore: 'mem'`, as the other devices
 * keep their replicas in memory) syncing the whole `visits` table from zero-cache over its
 * WebSocket, in a process of its own so its peak RSS is its own. Prints one JSON line. Node 20
 * has no global WebSocket: zero.ts starts it with --experimental-websocket (Node's own).
 *
 *   zero-device.mjs initial <cacheUrl>
 *     one initial sync into a fresh client: seconds, documents, peak RSS
 *   zero-device.mjs live <cacheUrl> <upstreamDbUrl>
 *     an initial sync, then live latency: 200 visits inserted upstream 20 ms apart, each timed
 *     from its INSERT's commit to its arrival in a view of the client
 *
 * The sync is complete when a materialized view of the whole table reports `complete` (zero-cache
 * has sent the query's rows and confirmed it, as opposed to `unknown`, what the client held so
 * far). A live write is seen by a second, narrow view (the live rows only), whose listener is
 * called with a few rows where the whole table's is called with 50,000; the whole table's view
 * stays open meanwhile, as an app's would, so the device keeps every row.
 */
import { randomBytes } from 'node:crypto';
import { Zero } from '@rocicorp/zero';
import postgres from 'postgres';
import { schema } from './zero-schema.mjs';

const [mode, cacheURL, upstreamDb] = process.argv.slice(2);
if (mode !== 'initial' && mode !== 'live') throw new Error(`unknown mode ${mode}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;
const LIVE_WRITES = 200;

// A fresh client group every run: a new user id, so nothing is shared with an earlier device.
const z = new Zero({ cacheURL, schema, userID: `device-${randomBytes(4).toString('hex')}`, kvStore: 'mem', logLevel: 'error' });

/** Resolves with the seconds until the whole table's view is complete, and its row count. */
function initialSync() {
  const start = performance.now();
  const view = z.materialize(z.query.visits);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no complete result in 600 s (${view.data.length} rows so far)`)), 600_000);
    view.addListener((rows, resultType, error) => {
      if (resultType === 'error') reject(new Error(`the query failed: ${JSON.stringify(error)}`));
      if (resultType !== 'complete') return;
      clearTimeout(timer);
      resolve({ seconds: (performance.now() - start) / 1000, documents: rows.length, view });
    });
  });
}

/** Each INSERT's commit upstream -> the row in the client's narrow view of the live rows. */
async function liveLatency() {
  const sql = postgres(upstreamDb, { max: 1, onnotice: () => {} });
  const seen = new Map();
  const live = z.materialize(z.query.visits.where('id', 'LIKE', 'live-%'));
  const ready = new Promise((resolve) => live.addListener((rows, resultType) => {
    if (resultType === 'complete') resolve();
    for (const { id } of rows) seen.get(id)?.(performance.now());
  }));
  await ready;
  await sleep(200);
  const latencies = [];
  const pending = [];
  for (let i = 0; i < LIVE_WRITES; i++) {
    const id = `live-${randomBytes(6).toString('hex')}`;
    const arrived = new Promise((resolve) => seen.set(id, resolve));
    await sql`INSERT INTO visits (id, notes, photos) VALUES (${id}, 'live', '[]'::jsonb)`;
    const committed = performance.now();
    pending.push(Promise.race([arrived.then((at) => void latencies.push(Math.max(0, at - committed))), sleep(5000)]));
    arrived.then(() => seen.delete(id));
    await sleep(20);
  }
  await Promise.all(pending);
  live.destroy();
  await sql.end();
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), missed: LIVE_WRITES - latencies.length };
}

const { seconds, documents, view } = await initialSync();
const live = mode === 'live' ? { live: await liveLatency() } : {};
console.log(JSON.stringify({ seconds, documents, ...live, peakRssMb: peakRssMb() }));
view.destroy();
await z.close();
process.exit(0);
