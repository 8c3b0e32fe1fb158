import type { Logger } from 'pino';
import { EVENT_RETENTION_DAYS } from '../../shared/index.js';
import type { Database } from '../storage/db.js';
import { pruneEvents } from '../storage/events.js';
import { pruneWebhookLog, vacuumDeliveryQueue } from '../storage/webhook-deliveries.js';

/**
 * Deletes events, delivery attempts and failed deliveries older than the 30 days the feed
 * promises, and vacuums the delivery queue. Once at start and then hourly, in every server process
 * (the deletes are idempotent).
 * Returns the function that stops it.
 */
export function startEventPruning(db: Database, logger: Logger, intervalMs = 3_600_000): () => void {
  const prune = () => {
    void Promise.all([pruneEvents(db, EVENT_RETENTION_DAYS), pruneWebhookLog(db, EVENT_RETENTION_DAYS).then(async (n) => (await vacuumDeliveryQueue(db), n))]).then(
      ([events, log]) => (events || log) && logger.info({ events, log, days: EVENT_RETENTION_DAYS }, 'pruned old events and webhook deliveries'),
      (error: unknown) => logger.warn({ err: error }, 'pruning events failed; will try again'),
    );
  };
  prune();
  const timer = setInterval(prune, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
