import type { Logger } from 'pino';
import type { Database } from '../storage/db.js';
import { analyzeTable, autovacuumKeepsStatistics, staleTables } from '../storage/statistics.js';

/**
 * Analyzes the tables that grew since their statistics were taken (storage/statistics.ts), every
 * `intervalMs`, on a store whose statistics nothing else keeps: always on the embedded store, and on
 * PostgreSQL only when its autovacuum is off. An import of a company's customers is planned on
 * real figures within a minute. Several processes doing it cost only the work. Returns the
 * function that stops it.
 */
export function startStatisticsKeeper(db: Database, logger: Logger, intervalMs = 30_000): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const round = async () => {
    try {
      const analyzed = await keepStatistics(db);
      if (analyzed.length) logger.info({ tables: analyzed }, 'planner statistics refreshed');
    } catch (error) {
      logger.warn({ err: error }, 'refreshing planner statistics failed; will try again');
    }
    if (!stopped) (timer = setTimeout(round, intervalMs)).unref();
  };
  void autovacuumKeepsStatistics(db).then(
    (kept) => {
      if (!kept && !stopped) (timer = setTimeout(round, intervalMs)).unref();
    },
    (error: unknown) => logger.warn({ err: error }, 'could not tell whether autovacuum keeps planner statistics'),
  );
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** One round: analyzes every stale table, one at a time (a store's writes go on between them). Returns their names. */
export async function keepStatistics(db: Database): Promise<string[]> {
  const stale = await staleTables(db);
  for (const table of stale) await analyzeTable(db, table.name);
  return stale.map((t) => t.name);
}
