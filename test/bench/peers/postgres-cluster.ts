import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A PostgreSQL cluster of the bench's own, for a peer that replicates by logical decoding
 * (zero-cache): `wal_level=logical` needs a restart of the server it is set on, and the shared
 * server of this machine runs with the default (`replica`), so the bench makes its own with
 * `initdb` in a temp folder and starts it with `pg_ctl`: on 127.0.0.1 only, on a free port, its
 * unix socket in that folder. PostgreSQL refuses to run as root, so as root the bench runs them as
 * the `postgres` user (`runuser`). Stopped by `stop()`, and by the exit of this process however
 * it ends (an exit hook and SIGINT/SIGTERM), since `pg_ctl` leaves the server running detached.
 */
export interface PrivateCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres, trust authentication. */
  url: string;
  stop(): Promise<void>;
}

/** The PostgreSQL programs: BENCH_PG_BIN, else `pg_config --bindir`, else the PATH's. */
function programs(): (name: string) => string {
  const configured = process.env.BENCH_PG_BIN ?? spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' }).stdout?.trim();
  return (name) => (configured ? path.join(configured, name) : name);
}

/** The command as the user PostgreSQL accepts: `postgres` when this process is root. */
function asServerUser(command: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...command]] : [command[0]!, command.slice(1)];
}

function run(command: string[]): string {
  const [program, args] = asServerUser(command);
  const result = spawnSync(program, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

function idOf(flag: '-u' | '-g'): number {
  const id = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0) throw new Error('running as root, the bench needs a `postgres` user to run PostgreSQL as');
  return Number(id.stdout.trim());
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function startLogicalCluster(): Promise<PrivateCluster> {
  const bin = programs();
  const folder = await mkdtemp(path.join(tmpdir(), 'bench-zero-pg-'));
  const data = path.join(folder, 'data');
  const stopNow = (mode: 'fast' | 'immediate') => {
    const [program, args] = asServerUser([bin('pg_ctl'), '-D', data, '-m', mode, '-w', 'stop']);
    spawnSync(program, args, { stdio: 'ignore' });
  };
  const onExit = () => {
    stopNow('immediate');
    rmSync(folder, { recursive: true, force: true });
  };
  // Ended by a signal, this process runs no `finally` and no exit hook unless it exits itself.
  const onSignal = (signal: NodeJS.Signals) => process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const forget = () => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  try {
    if (process.getuid?.() === 0) await chown(folder, idOf('-u'), idOf('-g'));
    run([bin('initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    const settings = `-c wal_level=logical -c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${folder}`;
    run([bin('pg_ctl'), '-D', data, '-l', path.join(folder, 'server.log'), '-o', settings, '-w', '-t', '120', 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      stop: async () => {
        stopNow('fast');
        forget();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    onExit();
    forget();
    throw error;
  }
}
