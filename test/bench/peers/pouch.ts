import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { endsWithThisProcess, finished, ROOT, waitForOutput } from '../../support/child.js';
import { procStatusMb } from '../sync.js';
import { PAGE, RUNS, type SideFigures } from './figures.js';
import { startWireCounter } from './wire-counter.js';

/**
 * The peer's side: PouchDB with express-pouchdb, its packages in this folder's own package.json
 * and lockfile (installed on first use), so the product's dependencies never include them. Its
 * loader, server and devices are separate processes, as ours are.
 */
const PEERS = path.join(ROOT, 'test/bench/peers');
const phase = (name: string) => console.error(`[peers ${new Date().toISOString().slice(11, 19)}] PouchDB: ${name}`);

/** `npm ci` in this folder when its node_modules is missing: the exact versions of the lockfile. */
export function installPeer(): void {
  if (existsSync(path.join(PEERS, 'node_modules'))) return;
  console.error(`installing the peer's packages into ${path.relative(ROOT, PEERS)}/node_modules`);
  const run = spawnSync('npm', ['ci', '--prefix', PEERS, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`npm ci --prefix ${PEERS} failed`);
}

/** "PouchDB 9.0.0 + express-pouchdb 4.2.0", as installed. */
export function peerName(): string {
  const version = (name: string) => (JSON.parse(readFileSync(path.join(PEERS, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return `PouchDB ${version('pouchdb')} + express-pouchdb ${version('express-pouchdb')}`;
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
