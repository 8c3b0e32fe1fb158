import { DeviceHost } from './device-host.js';
import { runSeed, type SeedOptions, type SeedReport } from './scenario.js';
import { startSimServer, type SimServer } from './sim-server.js';

/**
 * The convergence simulation as a script:
 *   npm run simulate -- --seeds 200                  200 seeds from 1, PGlite, faults
 *   npm run simulate -- --seeds 50 --engine postgres  (DATABASE_URL or TEST_DATABASE_URL)
 *   npm run simulate -- --seed 1234                  one seed again (or SIM_SEED=1234)
 *   --crash  kills the server (SIGKILL) mid-run;  --drop-connections  ends its PostgreSQL
 *   connections mid-run (the LISTEN one too);  --restart-postgres  restarts this machine's
 *   PostgreSQL cluster mid-run (pg_ctlcluster; nothing else may be using it);  --actions N  per seed (default 60);  --devices N
 *   technicians (default 3);  --first N  the first seed of a range.
 *   SIM_DEVICE_STORAGE=indexeddb  keeps the devices' replicas in the SDK's browser storage (on
 *   fake-indexeddb) instead of RxDB's memory storage.
 * Prints one line per seed and exits non-zero if any seed broke an invariant.
 */
export interface SimulationRun {
  engine: 'pglite' | 'postgres';
  postgresUrl?: string;
  seeds: number[];
  technicians: number;
  options: Omit<SeedOptions, 'seed' | 'server' | 'hosts'>;
  /** Changes of the options for particular seeds (say, one that kills the server). */
  perSeed?: (seed: number) => Partial<SimulationRun['options']>;
  log?: (line: string) => void;
}

export async function simulate(run: SimulationRun): Promise<SeedReport[]> {
  const log = run.log ?? console.log;
  const server: SimServer = await startSimServer(run.engine, run.postgresUrl);
  const hosts = await Promise.all(Array.from({ length: run.technicians + 1 }, () => DeviceHost.spawn()));
  const reports: SeedReport[] = [];
  try {
    for (const seed of run.seeds) {
      const report = await runSeed({ ...run.options, ...run.perSeed?.(seed), seed, server, hosts }).catch((error: unknown): SeedReport => ({
        seed,
        problems: [`the run failed: ${error instanceof Error ? error.message : String(error)}`],
        actions: 0,
        done: 0,
        faults: 0,
        ms: 0,
      }));
      reports.push(report);
      const verdict = report.problems.length ? `FAILED (${report.problems.length} problems)` : 'ok';
      const e = report.exercised;
      const checked = e ? `; checked ${e.conflicts} conflict-log entries, ${e.quarantined} quarantined, ${e.movements} movements (${e.doses} doses), ${e.photos} photos, ${e.payments} payments` : '';
      const recovered = report.recoveryMs == null ? 'not in sync' : `in sync ${(report.recoveryMs / 1000).toFixed(1)} s after the heal`;
      log(`seed ${seed}: ${verdict}; ${report.done}/${report.actions} actions done, ${report.faults} fault switches, ${report.moves ?? 0} moves, ${report.newPhones ?? 0} new phones${checked}; ${recovered}; ${(report.ms / 1000).toFixed(1)} s (replay: SIM_SEED=${seed})`);
      for (const p of report.problems.slice(0, 20)) log(`  - ${p}`);
    }
  } finally {
    for (const h of hosts) h.kill();
    await server.stop();
  }
  return reports;
}

/** Time from the heal until every device was in sync: median, p95 and max over the seeds. */
export function recoverySummary(reports: SeedReport[]): string {
  const times = reports.map((r) => r.recoveryMs).filter((ms): ms is number => typeof ms === 'number').sort((a, b) => a - b);
  if (!times.length) return 'recovery after the heal: no seed recovered';
  const at = (q: number) => (times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]! / 1000).toFixed(1);
  const missing = reports.length - times.length;
  return `recovery after the heal (every device in sync): median ${at(0.5)} s, p95 ${at(0.95)} s, max ${at(1)} s${missing ? `; ${missing} seeds not within the limit` : ''}`;
}

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const engine = (argument('engine') ?? 'pglite') as 'pglite' | 'postgres';
  const postgresUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (engine === 'postgres' && !postgresUrl) throw new Error('--engine postgres needs DATABASE_URL or TEST_DATABASE_URL');
  const one = argument('seed') ?? process.env.SIM_SEED;
  const first = Number(argument('first') ?? 1);
  const seeds = one ? [Number(one)] : Array.from({ length: Number(argument('seeds') ?? 10) }, (_, i) => first + i);
  const started = Date.now();
  const reports = await simulate({
    engine,
    postgresUrl,
    seeds,
    technicians: Number(argument('devices') ?? 3),
    options: {
      actions: Number(argument('actions') ?? 60),
      faults: !process.argv.includes('--no-faults'),
      crashServer: process.argv.includes('--crash'),
      dropDatabaseConnections: process.argv.includes('--drop-connections'),
      restartPostgres: process.argv.includes('--restart-postgres'),
    },
  });
  const failed = reports.filter((r) => r.problems.length);
  const total = (pick: (r: SeedReport) => number) => reports.reduce((sum, r) => sum + pick(r), 0);
  console.log(
    `actions done ${total((r) => r.done)} of ${total((r) => r.actions)}; fault switches ${total((r) => r.faults)}; moves ${total((r) => r.moves ?? 0)}; new phones ${total((r) => r.newPhones ?? 0)}; conflict-log entries checked ${total((r) => r.exercised?.conflicts ?? 0)}; ` +
      `quarantined ${total((r) => r.exercised?.quarantined ?? 0)}; movements ${total((r) => r.exercised?.movements ?? 0)} (doses ${total((r) => r.exercised?.doses ?? 0)}); photos ${total((r) => r.exercised?.photos ?? 0)}; payments ${total((r) => r.exercised?.payments ?? 0)}`,
  );
  console.log(recoverySummary(reports));
  console.log(
    `${reports.length - failed.length} of ${reports.length} seeds converged on ${engine} in ${((Date.now() - started) / 1000).toFixed(0)} s` +
      (failed.length ? `; failed seeds: ${failed.map((r) => r.seed).join(', ')}` : ''),
  );
  process.exit(failed.length ? 1 : 0);
}

if (process.argv[1]?.endsWith('simulate.ts')) {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
