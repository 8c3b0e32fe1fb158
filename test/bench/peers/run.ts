import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { exportWorkload } from './workload.js';
import { measureOurs } from './ours.js';
import { installPeer, measurePouch } from './pouch.js';
import type { SideFigures } from './figures.js';
import { printComparison } from './table.js';

/**
 * `npm run bench:peers`: the sync bench's workload (BENCH_VISITS visits, 50,000 by default) on our
 * server and on PouchDB with express-pouchdb, one after the other in the same run, and the two
 * side by side. Ours runs on PGlite and, when BENCH_DATABASE_URL (or TEST_DATABASE_URL) names a
 * PostgreSQL server, on PostgreSQL too (BENCH_ENGINES=pglite or =postgres for one).
 */
// The load average says whether others shared the cores: the figures are only as quiet as it.
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');
console.log(`${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · Node ${process.version} · load average ${load()}`);
installPeer();
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const engines = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',').filter((e): e is 'pglite' | 'postgres' => e === 'pglite' || (e === 'postgres' && Boolean(postgresUrl)));
if (!engines.length) throw new Error('BENCH_ENGINES names no engine this run can use (postgres needs BENCH_DATABASE_URL)');

const folder = await mkdtemp(path.join(tmpdir(), 'bench-peers-'));
try {
  const workload = path.join(folder, 'visits.jsonl');
  let exported = 0;
  const ours: SideFigures[] = [];
  for (const engine of engines) {
    // The peer's documents are taken from the first of our servers, before anything writes to it.
    const exportOnce = ours.length ? undefined : async (server: Parameters<typeof exportWorkload>[0]) => void (exported = await exportWorkload(server, workload));
    ours.push(await measureOurs(engine, postgresUrl, exportOnce));
  }
  const peer = await measurePouch(workload);
  const held = [peer, ...ours].filter((s) => s.documents !== exported);
  if (held.length) throw new Error(`devices held ${held.map((s) => `${s.documents} (${s.name})`).join(', ')} of the ${exported} visits exported`);
  printComparison(peer, ours);
  console.log(`${new Date().toISOString()} · load average ${load()} (1 / 5 / 15 min)`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
