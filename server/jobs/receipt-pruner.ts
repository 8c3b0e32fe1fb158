import type { Logger } from 'pino';
import type { Database } from '../storage/db.js';
import { pruneReceipts } from '../storage/sync-receipts.js';

/**
 * Deletes receipts of sync changes older than `days`, once at start and then hourly, in every
 * server process (the delete is idempotent, so several processes doing it costs nothing extra).
 * Returns the function that stops it.
 */
export function startReceiptPruning(db: Database, days: number, logger: Logger, intervalMs = 3_600_000): () => void {
  const prune = () =>
    pruneReceipts(db, days).then(
      (count) => count && logger.info({ count, days }, 'pruned old sync receipts'),
      (error: unknown) => logger.warn({ err: error }, 'pruning sync receipts failed; will try again'),
    );
  void prune();
  const timer = setInterval(prune, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
