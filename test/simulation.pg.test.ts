import { describe, expect, it } from 'vitest';
import { engines, TEST_DATABASE_URL } from './support/engines.js';
import { simulate } from './sim/simulate.js';

/**
 * A short run of the convergence simulation (test/sim/): three technicians and an office on their
 * own devices behind fault proxies, random actions, then the network heals and every invariant is
 * checked. A few seeds here; `npm run simulate -- --seeds 200` is the long run (test/README.md).
 * SIM_SEED=<n> replays one seed. The seeds differ per engine and per day-of-code only through
 * timing: the decisions are the seed's.
 */
const SEEDS = process.env.SIM_SEED ? [Number(process.env.SIM_SEED)] : [101, 102, 103];

describe.each(engines)('convergence simulation on %s', (engine) => {
  it(
    `seeds ${SEEDS.join(', ')} converge, one with the server killed mid-run${engine === 'postgres' ? ' and one with its database connections dropped' : ''}`,
    async () => {
      const lines: string[] = [];
      const reports = await simulate({
        engine,
        postgresUrl: TEST_DATABASE_URL,
        seeds: SEEDS,
        technicians: 3,
        options: { actions: 40, faults: true, crashServer: false, dropDatabaseConnections: false },
        perSeed: (seed) => ({ crashServer: seed === SEEDS[1], dropDatabaseConnections: engine === 'postgres' && seed === SEEDS[2] }),
        log: (line) => lines.push(line),
      });
      console.log(lines.join('\n'));
      expect(reports.flatMap((r) => r.problems.map((p) => `seed ${r.seed}: ${p}`))).toEqual([]);
      expect(reports.every((r) => r.done > 20)).toBe(true);
    },
    // A guard against a hang, not a measure of speed: one engine's three seeds took 70-130 s on a
    // quiet CI machine, and twice that when the machine is loaded.
    480_000,
  );
});
