import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { finished } from '../../support/child.js';
import { PEERS } from './install.js';
import { isLoopback, listeningAddresses, sampleTreePeak, treeMb } from './process-tree.js';

/**
 * zero-cache 1.9 over the bench's own PostgreSQL cluster: its permissions deployed first
 * (`zero-deploy-permissions`), then the server, a process tree of its own (a runner, a
 * dispatcher, the change-streamer, the replicator, a reaper and one sync worker), started in a
 * process group of its own so that stopping it ends every one of them.
 */
const ZERO = path.join(PEERS, 'node_modules/@rocicorp/zero/out/zero/src');
const LOOPBACK_SHIM = path.join(PEERS, 'zero-listen-loopback.cjs');

export interface RunningZeroCache {
  url: string;
  pid: number;
  /** The processes' RSS added up, at the largest sample since the start. */
  peak(): Promise<{ peakMb: number; processes: number }>;
  stop(): Promise<void>;
}

/**
 * What every Zero program here is given: the schema's columns, telemetry off (zero-cache
 * otherwise reports anonymous usage to Rocicorp: nothing may leave this machine) and no .env of
 * the working folder (zero-cache loads one; it is started in the bench's temp folder).
 */
export function zeroEnv(columnsFile: string): NodeJS.ProcessEnv {
  return { ...process.env, BENCH_ZERO_COLUMNS: columnsFile, DO_NOT_TRACK: '1', ZERO_ENABLE_TELEMETRY: 'false' };
}

/** `zero-deploy-permissions --schema-path zero-schema.mjs`: what the devices may read. */
export async function deployPermissions(upstreamDb: string, folder: string, columnsFile: string): Promise<void> {
  const child = spawn(process.execPath, [path.join(ZERO, 'deploy-permissions.js'), '--schema-path', path.join(PEERS, 'zero-schema.mjs'), '--upstream-db', upstreamDb], {
    cwd: folder,
    env: zeroEnv(columnsFile),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = await finished(child);
  if (run.code !== 0) throw new Error(`zero-deploy-permissions failed:\n${run.stdout}${run.stderr}`);
}

/** A port whose next one is free too (zero-cache's change-streamer takes the sync port + 1). */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const probes = [net.createServer(), net.createServer()];
    try {
      await new Promise<void>((resolve, reject) => probes[0]!.once('error', reject).listen(0, '127.0.0.1', resolve));
      const { port } = probes[0]!.address() as AddressInfo;
      await new Promise<void>((resolve, reject) => probes[1]!.once('error', reject).listen(port + 1, '127.0.0.1', resolve));
      return port;
    } catch {
      // the next port was taken: another pair
    } finally {
      for (const probe of probes) if (probe.listening) await new Promise((resolve) => probe.close(resolve));
    }
  }
  throw new Error('found no two free consecutive ports on 127.0.0.1');
}

/** Kills the whole process group (the child was started detached, as its leader). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group has ended
  }
}

async function waitUntilServing(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`zero-cache exited (${child.exitCode}):\n${readFileSync(log, 'utf8').slice(-4000)}`);
    // zero-cache opens its sync port once its replica is ready and its workers have started.
    const ok = await fetch(`${url}/`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`zero-cache did not answer in 600 s:\n${readFileSync(log, 'utf8').slice(-4000)}`);
}

export async function startZeroCache(upstreamDb: string, folder: string, columnsFile: string): Promise<RunningZeroCache> {
  const port = await freePortPair();
  const log = path.join(folder, 'zero-cache.log');
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [path.join(ZERO, 'cli.js')], {
    cwd: folder,
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      ...zeroEnv(columnsFile),
      // Every Node process of the tree preloads the shim (see zero-listen-loopback.cjs).
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(LOOPBACK_SHIM)}`.trim(),
      ZERO_UPSTREAM_DB: upstreamDb,
      ZERO_REPLICA_FILE: path.join(folder, 'replica.db'),
      ZERO_PORT: String(port),
      ZERO_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      // One view-syncer: a server of a size that compares with the others' on two cores.
      ZERO_NUM_SYNC_WORKERS: '1',
      // The address the sync worker finds its change-streamer at; by default the address of the
      // machine's first network interface, where nothing listens with the shim.
      ZERO_CHANGE_STREAMER_ADDRESS: `127.0.0.1:${port + 1}`,
    },
  });
  closeSync(out);
  const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const sampler = sampleTreePeak(child.pid!);
  const onExit = () => killGroup(child, 'SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    await sampler.stop();
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 30_000);
    await ended;
    clearTimeout(timer);
    // What the runner leaves behind (a worker still draining) ends with its group.
    killGroup(child, 'SIGKILL');
    process.off('exit', onExit);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(url, child, log);
    const outside = (await listeningAddresses(child.pid!)).filter((address) => !isLoopback(address));
    if (outside.length) throw new Error(`zero-cache listens beyond the loopback (${outside.join(', ')}): the shim did not hold`);
    return {
      url,
      pid: child.pid!,
      peak: async () => {
        const each = await treeMb(child.pid!, 'VmHWM');
        const together = await sampler.stop();
        console.error(`zero-cache: ${together.processes} processes, ${together.peakMb.toFixed(0)} MB together at the largest sample (their own peaks add up to ${each.mb.toFixed(0)} MB)`);
        return together;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
