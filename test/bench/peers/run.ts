import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { exportWorkload } from './workload.js';
import { measureOurs } from './ours.js';
import { installPeers } from './install.js';
import { measurePouch } from './pouch.js';
import { measureZero } from './zero.js';
import type { SideFigures } from './figures.js';
import { printComparison } from './table.js';

/**
 * `npm run bench:peers`: the sync bench's workload (BENCH_VISITS visits, 50,000 by default) on our
 * server and on the peers, PouchDB with express-pouchdb and Zero (zero-cache over PostgreSQL),
 * one after the other in the same run, side by side (README.md beside this file). BENCH_PEERS
 * picks peers (`pouch,zero` by default). Ours runs on PGlite and, when BENCH_DATABASE_URL (or
 * TEST_DATABASE_URL) names a PostgreSQL server, on PostgreSQL too (BENCH_ENGINES=pglite or
 * =postgres for one).
 */
const PEERS: Record<string, (workload: string) => Promise<SideFigures>> = { pouch: measurePouch, zero: measureZero };

// The load average says whether others shared the cores: the figures are only as quiet as it.
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');
console.log(`${new Date().toISOString()} · ${os.cpus().length} × ${os.cpus()[0]?.model} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · Node ${process.version} · load average ${load()} (1 / 5 / 15 min)`);
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
const engines = (process.env.BENCH_ENGINES ?? 'pglite,postgres').split(',').filter((e): e is 'pglite' | 'postgres' => e === 'pglite' || (e === 'postgres' && Boolean(postgresUrl)));
if (!engines.length) throw new Error('BENCH_ENGINES names no engine this run can use (postgres needs BENCH_DATABASE_URL)');
const peers = (process.env.BENCH_PEERS ?? 'pouch,zero').split(',').map((p) => p.trim()).filter(Boolean);
const unknown = peers.filter((p) => !(p in PEERS));
if (unknown.length || !peers.length) throw new Error(`BENCH_PEERS names ${unknown.length ? `unknown peers (${unknown.join(', ')})` : 'no peer'}: choose from ${Object.keys(PEERS).join(', ')}`);
installPeers();

const folder = await mkdtemp(path.join(tmpdir(), 'bench-peers-'));
try {
  const workload = path.join(folder, 'visits.jsonl');
  let exported = 0;
  const ours: SideFigures[] = [];
  for (const engine of engines) {
    // The peers' documents are taken from the first of our servers, before anything writes to it.
    const exportOnce = ours.length ? undefined : async (server: Parameters<typeof exportWorkload>[0]) => void (exported = await exportWorkload(server, workload));
    ours.push(await measureOurs(engine, postgresUrl, exportOnce));
  }
  const measured: SideFigures[] = [];
  for (const peer of peers) {
    console.error(`load average before ${peer}: ${load()}`);
    measured.push(await PEERS[peer]!(workload));
  }
  const held = [...measured, ...ours].filter((s) => s.documents !== exported);
  if (held.length) throw new Error(`devices held ${held.map((s) => `${s.documents} (${s.name})`).join(', ')} of the ${exported} visits exported`);
  printComparison(measured, ours);
  console.log(`${new Date().toISOString()} · load average ${load()} (1 / 5 / 15 min)`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
