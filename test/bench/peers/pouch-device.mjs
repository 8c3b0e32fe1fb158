/**
 * The peer's device: PouchDB on its in-memory adapter (as our bench's device is the SDK on RxDB's
 * memory storage) replicating with the server over HTTP by CouchDB's replication protocol, in a
 * process of its own so its peak RSS is its own. Prints one JSON line.
 *
 *   pouch-device.mjs initial <dbUrl> <batchSize>
 *     one initial sync into a fresh replica: seconds, documents, peak RSS
 *   pouch-device.mjs push-live <dbUrl> <batchSize> <rounds>
 *     an initial sync, then per round 1,000 visits recorded + 1,000 edited offline (one write at a
 *     time, as an app records them) and the time to push them; then live latency: 200 visits
 *     written to the server 20 ms apart, each timed from the server's answer to its arrival in
 *     the replica
 */
import { randomBytes } from 'node:crypto';
import PouchDB from 'pouchdb';
import memoryAdapter from 'pouchdb-adapter-memory';

PouchDB.plugin(memoryAdapter);
const [mode, dbUrl, batch, rounds] = process.argv.slice(2);
const batchSize = Number(batch);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const median = (values) => percentile(values, 0.5);
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

const remote = new PouchDB(dbUrl, { skip_setup: true });
const local = new PouchDB(`device-${randomBytes(4).toString('hex')}`, { adapter: 'memory' });

async function initialSync() {
  const start = performance.now();
  await local.replicate.from(remote, { batch_size: batchSize });
  const seconds = (performance.now() - start) / 1000;
  const { doc_count: documents } = await local.info();
  return { seconds, documents };
}

/**
 * 1,000 new visits and 1,000 edited, written one at a time; returns the ms the writes took and
 * how many documents the push must write. The edited are the first 1,000 by id before the new
 * ones are written, as in our bench (from the second round on, the previous round's new visits:
 * both sides' new ids sort first).
 */
async function writeOffline(round) {
  const { rows } = await local.allDocs({ limit: 1000 });
  const start = performance.now();
  for (let i = 0; i < 1000; i++) {
    await local.put({ _id: `offline-${round}-${randomBytes(8).toString('hex')}`, notes: `offline visit ${i}`, photos: [], chemicalReadings: null });
  }
  for (const { id } of rows) {
    const doc = await local.get(id);
    await local.put({ ...doc, waterLevel: 'HIGH', notes: `edited ${id}` });
  }
  return { ms: performance.now() - start, written: 1000 + rows.length };
}

async function push(round) {
  const { ms: localWriteMs, written } = await writeOffline(round);
  const start = performance.now();
  const result = await local.replicate.to(remote, { batch_size: batchSize });
  const seconds = (performance.now() - start) / 1000;
  // Fewer than 1,000 edited only when the workload holds fewer than 1,000 visits (a small BENCH_VISITS).
  if (result.docs_written !== written) throw new Error(`push wrote ${result.docs_written} of ${written}`);
  return { seconds, localWriteMs };
}

/** The server's answer to each write -> the change in the replica, through a live pull. */
async function liveLatency() {
  const seen = new Map();
  const feed = local.changes({ since: 'now', live: true }).on('change', (change) => seen.get(change.id)?.(performance.now()));
  const replication = local.replicate.from(remote, { live: true, retry: true, batch_size: batchSize });
  await new Promise((resolve) => replication.once('paused', resolve));
  await sleep(200);
  const latencies = [];
  const pending = [];
  for (let i = 0; i < 200; i++) {
    const id = `live-${randomBytes(6).toString('hex')}`;
    const arrived = new Promise((resolve) => seen.set(id, resolve));
    const res = await fetch(`${dbUrl}/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notes: 'live', photos: [] }) });
    if (!res.ok) throw new Error(`live write answered ${res.status}`);
    const committed = performance.now();
    pending.push(Promise.race([arrived.then((at) => void latencies.push(Math.max(0, at - committed))), sleep(5000)]));
    await sleep(20);
  }
  await Promise.all(pending);
  replication.cancel();
  feed.cancel();
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), missed: 200 - latencies.length };
}

if (mode === 'initial') {
  console.log(JSON.stringify({ ...(await initialSync()), peakRssMb: peakRssMb() }));
} else if (mode === 'push-live') {
  await initialSync();
  const pushes = [];
  for (let round = 0; round < Number(rounds); round++) pushes.push(await push(round));
  const live = await liveLatency();
  console.log(JSON.stringify({ pushes: pushes.map((p) => p.seconds), localWriteMs: median(pushes.map((p) => p.localWriteMs)), live, peakRssMb: peakRssMb() }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
await local.destroy();
