import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { endsWithThisProcess, finished, ROOT, waitForOutput } from '../support/child.js';

/**
 * The server of a simulation, as users run it (the built bundle, its own process), on a fixed
 * port so it can be killed with SIGKILL and started again where devices expect it. PGlite keeps
 * its files in a temporary folder; PostgreSQL gets a database of its own.
 */
export const SIM_ADMIN_TOKEN = 'simulation-platform-admin-token';

export interface SimServer {
  url: string;
  engine: 'pglite' | 'postgres';
  /** SIGKILL, then start again on the same store and port. */
  crash(): Promise<void>;
  /** PostgreSQL only: ends every connection of the server (what a restart of PostgreSQL does to it). */
  dropDatabaseConnections(): Promise<number>;
  /**
   * PostgreSQL only: restarts the PostgreSQL cluster itself (pg_ctlcluster, this machine's local
   * cluster; needs the rights to), so the database is gone for a moment too. Resolves when it
   * accepts connections again.
   */
  restartPostgres(): Promise<void>;
  stop(): Promise<void>;
}

let built: Promise<void> | null = null;
function buildOnce(): Promise<void> {
  built ??= finished(spawn('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })).then((r) => {
    if (r.code !== 0) throw new Error(`build failed: ${r.stderr}`);
  });
  return built;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startSimServer(engine: 'pglite' | 'postgres', postgresUrl?: string): Promise<SimServer> {
  await buildOnce();
  const folder = await mkdtemp(path.join(tmpdir(), 'pool-sim-'));
  const port = await freePort();
  let databaseUrl: string | undefined;
  let dbName = '';
  if (engine === 'postgres') {
    dbName = `pool_sim_${randomBytes(4).toString('hex')}`;
    await admin(postgresUrl!, `create database ${dbName}`);
    const url = new URL(postgresUrl!);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(folder, 'data'),
    SEED_DEMO_ORG: 'false',
    PLATFORM_ADMIN_TOKEN: SIM_ADMIN_TOKEN,
    BULK_WORKER: 'false',
    LOG_LEVEL: process.env.SIM_LOG_LEVEL ?? 'error',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  let child = await launch(env);
  return {
    url: `http://127.0.0.1:${port}`,
    engine,
    async crash() {
      child.kill('SIGKILL');
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode ? resolve(null) : child.once('exit', resolve)));
      child = await launch(env);
    },
    async dropDatabaseConnections() {
      if (!databaseUrl) return 0;
      const { rows } = await admin(postgresUrl!, `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = '${dbName}'`);
      return (rows[0] as { n: number }).n;
    },
    async restartPostgres() {
      if (!databaseUrl) return;
      const version = (await readdir('/etc/postgresql'))[0]!;
      const restart = await finished(spawn('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart'], { stdio: ['ignore', 'pipe', 'pipe'] }));
      if (restart.code !== 0) throw new Error(`pg_ctlcluster restart failed: ${restart.stderr}`);
      for (let i = 0; i < 100; i++) {
        if (await admin(postgresUrl!, 'select 1').then(() => true, () => false)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('PostgreSQL did not come back');
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      if (dbName) await admin(postgresUrl!, `drop database if exists ${dbName} with (force)`);
      await rm(folder, { recursive: true, force: true });
    },
  };
}

async function launch(env: Record<string, string>): Promise<ChildProcess> {
  const child = endsWithThisProcess(
    spawn(process.execPath, ['--enable-source-maps', path.join(ROOT, 'server/dist/main.js')], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  // A first start migrates and installs the scope triggers: on a loaded machine that has taken over a minute.
  await waitForOutput(child, /listening on/, 180_000);
  child.stdout!.resume();
  return child;
}

async function admin(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}
