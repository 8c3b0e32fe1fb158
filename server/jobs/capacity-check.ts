import type { Logger } from 'pino';
import { capacityWarnings, type EmbeddedStoreCapacity, type ServerWarning } from '../operations/store-capacity.js';
import type { Database } from '../storage/db.js';
import { activeTechnicians } from '../storage/active-technicians.js';

export interface CapacityCheck {
  /** The warnings of the latest check (empty on PostgreSQL, and while the store is within its capacity). */
  warnings(): ServerWarning[];
  stop(): void;
}

/**
 * Tells the operator when the embedded store has outgrown one process (operations/store-capacity.ts):
 * checked once at start (resolved before the server listens, so the first /readyz already has the
 * answer), then every `intervalMs` (hourly), so a store that grows past its capacity while running
 * says so without a restart. A warning line is logged when the store turns outgrown, not at every
 * check. PostgreSQL is never checked: it has no such limit here.
 */
export async function startCapacityCheck(
  db: Database,
  options: { capacity: EmbeddedStoreCapacity; tokenIdleDays: number },
  logger: Logger,
  intervalMs = 3_600_000,
): Promise<CapacityCheck> {
  let current: ServerWarning[] = [];
  if (db.engine !== 'pglite') return { warnings: () => current, stop: () => {} };
  const check = async () => {
    try {
      const technicians = await activeTechnicians(db, options);
      const next = capacityWarnings(technicians, options.capacity);
      if (next.length && !current.length) for (const w of next) logger.warn({ code: w.code, technicians }, w.message);
      current = next;
    } catch (error) {
      logger.warn({ err: error }, 'measuring the embedded store for its capacity failed; will try again');
    }
  };
  await check();
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return { warnings: () => current, stop: () => clearInterval(timer) };
}
