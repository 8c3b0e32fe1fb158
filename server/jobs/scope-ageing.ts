import type { Logger } from 'pino';
import type { Database } from '../storage/db.js';
import { ageScopes } from '../storage/scopes.js';

/**
 * Keeps each device's window what it says (shared/sync/scopes.ts): once at start, over everything
 * (a server that was down for a week has a week of ageing to do), then hourly for the rows that
 * aged since the last run. A visit whose day has left the office's 14 days leaves the office's
 * replicas; one that left a technician's 60 days leaves their phone. Idempotent, so several server
 * processes doing it cost only the work. Returns the function that stops it.
 */
export function startScopeAgeing(db: Database, logger: Logger, intervalMs = 3_600_000): () => void {
  let since: Date | null = null;
  let running = false;
  const age = async () => {
    if (running) return;
    running = true;
    const started = new Date();
    try {
      await ageScopes(db, since);
      since = started;
    } catch (error) {
      logger.warn({ err: error }, 'ageing device scopes failed; will try again');
    } finally {
      running = false;
    }
  };
  void age();
  const timer = setInterval(age, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
