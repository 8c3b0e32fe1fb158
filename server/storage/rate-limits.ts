import type { Database } from './db.js';

/**
 * The table rate-limiter-flexible keeps request budgets in (migration 0009), and the connection it
 * uses: its PostgreSQL store calls `query({text, values})` like a pg Pool; this passes those
 * statements to our Database, so the same budgets work on PostgreSQL (shared by every process)
 * and on the embedded store (one process owns it anyway).
 */
export const RATE_LIMIT_TABLE = 'rate_limits';

export interface RateLimitConnection {
  query(statement: { text: string; values?: unknown[] }): Promise<{ rows: unknown[]; rowCount: number }>;
}

export function rateLimitConnection(db: Database): RateLimitConnection {
  return { query: ({ text, values }) => db.query(text, values ?? []) };
}
