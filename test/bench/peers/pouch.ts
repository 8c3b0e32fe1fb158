import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { endsWithThisProcess, finished, waitForOutput } from '../../support/child.js';
import { procStatusMb } from '../sync.js';
import { PAGE, RUNS, type SideFigures } from './figures.js';
import { installedVersion, PEERS } from './install.js';
import { startWireCounter } from './wire-counter.js';

/**
 * A peer: PouchDB with express-pouchdb, its packages in this folder's own package.json and
 * lockfile (install.ts). Its loader, server and devices are separate processes, as ours are.
 */
const phase = (name: string) => console.error(`[peers ${new Date().toISOString().slice(11, 19)}] PouchDB: ${name}`);

/** "PouchDB 9.0.0 + express-pouchdb 4.2.0", as installed. */
export function peerName(): string {
  return `PouchDB ${installedVersion('pouchdb')} + express-pouchdb ${installedVersion('express-pouchdb')}`;
}

/** A script of this folder in a node process of its own; resolves with its last line of JSON. */
async function runPeerScript<T>(script: string, args: string[]): Promise<T> {
  const run = await finished(endsWithThisProcess(spawn(process.execPath, [path.join(PEERS, script), ...args], { cwd: PEERS, stdio: ['ignore', 'pipe', 'pipe'] })));
  if (run.code !== 0) throw new Error(`${script} ${args.join(' ')} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
}

interface DeviceSync {
  seconds: number;
  documents: number;
  peakRssMb: number;
}

interface PushAndLive {
  pushes: number[];
  localWriteMs: number;
  live: SideFigures['live'];
}

/** Loads the exported workload (one document a line), starts the peer's server, measures. */
export async function measurePouch(workload: string): Promise<SideFigures> {
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-pouch-'));
  try {
    phase('loading the workload');
    const started = performance.now();
    const { written } = await runPeerScript<{ written: number }>('pouch-seed.mjs', [folder, workload]);
    console.error(`loaded ${written} visits into PouchDB (LevelDB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const server = endsWithThisProcess(spawn(process.execPath, [path.join(PEERS, 'pouch-server.mjs'), folder], { cwd: PEERS, stdio: ['ignore', 'pipe', 'pipe'] }));
    try {
      const url = /listening on (http:\/\/\S+)/.exec(await waitForOutput(server, /listening on (http:\/\/\S+)/))![1]!;
      const db = `${url}/visits`;
      phase('device processes');
      const devices: DeviceSync[] = [];
      for (let i = 0; i < RUNS.deviceSyncs; i++) devices.push(await runPeerScript<DeviceSync>('pouch-device.mjs', ['initial', db, String(PAGE)]));
      phase('bytes on the wire');
      const counter = await startWireCounter(url);
      await runPeerScript('pouch-device.mjs', ['initial', `${counter.url}/visits`, String(PAGE)]).finally(() => counter.close());
      phase('pushes and live latency');
      const pushLive = await runPeerScript<PushAndLive>('pouch-device.mjs', ['push-live', db, String(PAGE), String(RUNS.pushes)]);
      return {
        name: peerName(),
        documents: devices[0]!.documents,
        deviceSyncs: devices.map((d) => d.seconds),
        devicePeakRssMb: Math.max(...devices.map((d) => d.peakRssMb)),
        pushes: pushLive.pushes,
        localWriteMs: pushLive.localWriteMs,
        live: pushLive.live,
        serverPeakRssMb: await procStatusMb(server.pid!, 'VmHWM'),
        wire: counter.bytes(),
      };
    } finally {
      server.kill('SIGTERM');
      if (server.exitCode === null) await new Promise((resolve) => server.once('close', resolve));
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
