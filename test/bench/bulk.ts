import { provisionOrganization } from '../../server/operations/organization.js';
import type { Database } from '../../server/storage/db.js';
import { startBulk, waitForBulk } from '../support/bulk.js';
import { startTestServer } from '../support/server.js';
import { seedOrganizationData } from './seed.js';

/**
 * The bulk benchmark: a bulk update of 10,000 customers and exports of 25,000, 50,000 and
 * 100,000 customers, each through the REST interface with the worker in this process; items/s and
 * the growth of this process's JS heap and RSS while it ran, to show export
 * memory stays flat as the row count grows. (With PGlite the database lives in this process too:
 * its RSS includes the embedded database's own pages.)
 */
/**
 * Runs the operation twice: once for time (nothing else in the process), once for memory. The
 * memory run samples every 100 ms after a forced collection (node --expose-gc, which npm run bench
 * passes), so the figure is what is really held (live heap), not what the collector has not got
 * round to freeing; a full collection ten times a second slows the run, hence the separate timing.
 */
async function timed(server: { url: string }, token: string, body: unknown) {
  const speed = await runOnce(server, token, body, false);
  const memory = await runOnce(server, token, body, true);
  return { ...memory, done: speed.done, seconds: speed.seconds };
}

async function runOnce(server: { url: string }, token: string, body: unknown, sampleMemory: boolean) {
  const gc = sampleMemory ? (globalThis as { gc?: () => void }).gc : undefined;
  gc?.();
  const baseline = process.memoryUsage();
  let peak = baseline.rss;
  let heapPeak = baseline.heapUsed;
  const sampler = sampleMemory
    ? setInterval(() => {
        gc?.();
        const now = process.memoryUsage();
        peak = Math.max(peak, now.rss);
        heapPeak = Math.max(heapPeak, now.heapUsed);
      }, gc ? 100 : 10)
    : undefined;
  const start = performance.now();
  const started = await startBulk(server, token, body);
  if (started.status !== 202) throw new Error(JSON.stringify(started.body));
  const done = await waitForBulk(server, token, started.body.id, 600_000);
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  return { done, seconds, growthMb: (peak - baseline.rss) / 2 ** 20, heapGrowthMb: (heapPeak - baseline.heapUsed) / 2 ** 20, peakMb: peak / 2 ** 20 };
}

export async function benchBulk(db: Database, label: string): Promise<void> {
  // A budget it never reaches: the limiter runs (its cost is part of the figures), never refuses.
  const server = await startTestServer(db, { worker: { chunkSize: 500, pollMs: 20 }, http: { rateLimitPerMinute: 1_000_000 } });
  try {
    console.log(`\nBulk operations on ${label}`);
    console.log('| operation | items | seconds | items/s | live JS heap growth | RSS growth | process peak RSS |');
    console.log('|---|---|---|---|---|---|---|');
    const row = (name: string, items: number, r: Awaited<ReturnType<typeof timed>>) =>
      console.log(
        `| ${name} | ${items} | ${r.seconds.toFixed(2)} | ${Math.round(items / r.seconds)} | ${r.heapGrowthMb.toFixed(0)} MB | ${r.growthMb.toFixed(0)} MB | ${r.peakMb.toFixed(0)} MB |`,
      );

    const small = await provisionOrganization(db, { name: 'Bulk Update Bench' });
    await seedOrganizationData(db, small.organization.id, { customers: 10_000, services: 0 });
    const update = await timed(server, small.token, { kind: 'CUSTOMERS_UPDATE', selection: { selector: {} }, patch: { zone: 'Bench', readyForInvoice: true } });
    if (update.done.succeeded !== 10_000) throw new Error(JSON.stringify(update.done));
    row('CUSTOMERS_UPDATE (all 10,000)', 10_000, update);

    for (const size of [25_000, 50_000, 100_000]) {
      const org = await provisionOrganization(db, { name: `Bulk Export Bench ${size}` });
      await seedOrganizationData(db, org.organization.id, { customers: size, services: 0 });
      const exported = await timed(server, org.token, { kind: 'CUSTOMERS_EXPORT' });
      if (exported.done.total !== size) throw new Error(JSON.stringify(exported.done));
      const bytes = (await (await fetch(exported.done.resultUrl)).arrayBuffer()).byteLength;
      row(`CUSTOMERS_EXPORT (${(bytes / 2 ** 20).toFixed(1)} MB CSV)`, size, exported);
    }
  } finally {
    await server.close();
  }
}
