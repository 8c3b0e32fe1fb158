import type { Logger } from 'pino';
import { pruneIdempotencyKeys } from '../operations/idempotency.js';
import type { Database } from '../storage/db.js';
import { pruneReceipts } from '../storage/sync-receipts.js';

export interface Retention {
  /** Receipts of applied sync changes (SYNC_RECEIPT_DAYS). */
  receiptDays: number;
  /** Idempotency-Keys of requests and their answers (IDEMPOTENCY_KEY_HOURS). */
  idempotencyKeyHours: number;
}

/**
 * Deletes what is kept only to recognise repeats once it is older than its retention: receipts
 * of sync changes and requests' Idempotency-Keys. Once at start and then hourly, in every server
 * process (the deletes are idempotent, so several processes doing them cost nothing extra).
 * Returns the function that stops it.
 */
export function startReceiptPruning(db: Database, retention: Retention, logger: Logger, intervalMs = 3_600_000): () => void {
  const prune = () => {
    void pruneReceipts(db, retention.receiptDays).then(
      (count) => count && logger.info({ count, days: retention.receiptDays }, 'pruned old sync receipts'),
      (error: unknown) => logger.warn({ err: error }, 'pruning sync receipts failed; will try again'),
    );
    void pruneIdempotencyKeys(db, retention.idempotencyKeyHours).then(
      (count) => count && logger.info({ count, hours: retention.idempotencyKeyHours }, 'pruned old idempotency keys'),
      (error: unknown) => logger.warn({ err: error }, 'pruning idempotency keys failed; will try again'),
    );
  };
  prune();
  const timer = setInterval(prune, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
