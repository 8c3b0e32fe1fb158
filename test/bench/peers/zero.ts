import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { endsWithThisProcess, finished } from '../../support/child.js';
import { RUNS, type SideFigures } from './figures.js';
import { startLogicalCluster } from './postgres-cluster.js';
import { startWireCounter } from './wire-counter.js';
import { installedVersion, PEERS } from './install.js';
import { deployPermissions, startZeroCache, zeroEnv } from './zero-cache.js';
import { loadUpstream, workloadColumns } from './zero-upstream.js';

/**
 * The second peer: Zero 1.9 (Rocicorp), a query-driven sync engine. Its server, zero-cache,
 * replicates a PostgreSQL database by logical replication into a SQLite replica of its own and
 * serves the clients' queries from it over a WebSocket; the client keeps what its queries return.
 * Here: the workload as a `visits` table in a PostgreSQL cluster of the bench's own (zero-cache
 * needs `wal_level=logical`), zero-cache over it on the loopback, and devices that query the
 * whole table, each a process of its own.
 *
 * Measured as the others are where the measure applies: the initial sync, the bytes on the wire,
 * live latency and both sides' memory. Not the offline push: Zero 1.9's client does not keep
 * writes made while it is offline (they are refused until it reconnects).
 */
const phase = (name: string) => console.error(`[peers ${new Date().toISOString().slice(11, 19)}] Zero: ${name}`);

export const zeroName = () => `Zero ${installedVersion('@rocicorp/zero')}`;

/** zero-device.mjs in a node process of its own; resolves with its last line of JSON. */
async function runDevice<T>(args: string[], columnsFile: string): Promise<T> {
  // Node 20 has no global WebSocket unless asked; Zero's client needs one (Node 22 has it on).
  const child = spawn(process.execPath, ['--experimental-websocket', path.join(PEERS, 'zero-device.mjs'), ...args], { cwd: PEERS, env: zeroEnv(columnsFile), stdio: ['ignore', 'pipe', 'pipe'] });
  const run = await finished(endsWithThisProcess(child));
  if (run.code !== 0) throw new Error(`zero-device.mjs ${args[0]} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

interface DeviceSync {
  seconds: number;
  documents: number;
  peakRssMb: number;
}

export async function measureZero(workload: string): Promise<SideFigures> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-zero-'));
  try {
    const columns = await workloadColumns(workload);
    const columnsFile = path.join(folder, 'columns.json');
    await writeFile(columnsFile, JSON.stringify(columns));
    phase('a PostgreSQL cluster with wal_level=logical');
    const cluster = await startLogicalCluster();
    try {
      phase('loading the workload');
      let started = performance.now();
      const written = await loadUpstream(cluster.url, workload, columns);
      console.error(`loaded ${written} visits into PostgreSQL (${columns.length} columns) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      await deployPermissions(cluster.url, folder, columnsFile);
      phase('zero-cache');
      started = performance.now();
      const cache = await startZeroCache(cluster.url, folder, columnsFile);
      console.error(`zero-cache copied the upstream into its replica and answered in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      try {
        phase('device processes');
        const devices: DeviceSync[] = [];
        for (let i = 0; i < RUNS.deviceSyncs; i++) devices.push(await runDevice<DeviceSync>(['initial', cache.url], columnsFile));
        phase('bytes on the wire');
        const counter = await startWireCounter(cache.url);
        await runDevice(['initial', counter.url], columnsFile).finally(() => counter.close());
        phase('live latency');
        const { live } = await runDevice<DeviceSync & { live: SideFigures['live'] }>(['live', cache.url, cluster.url], columnsFile);
        return {
          name: zeroName(),
          documents: devices[0]!.documents,
          deviceSyncs: devices.map((d) => d.seconds),
          devicePeakRssMb: Math.max(...devices.map((d) => d.peakRssMb)),
          pushes: null,
          localWriteMs: null,
          live,
          serverPeakRssMb: (await cache.peak()).peakMb,
          wire: counter.bytes(),
        };
      } finally {
        await cache.stop();
      }
    } finally {
      await cluster.stop();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
