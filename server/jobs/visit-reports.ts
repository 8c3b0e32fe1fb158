import type { Logger } from 'pino';
import { composeReport } from '../operations/reports/compose.js';
import { recordReportSent, withReportLink, type ReportSending } from '../operations/reports/deliver.js';
import type { Database } from '../storage/db.js';
import { claimDueReportMessages, markAttemptFailed } from '../storage/outgoing-messages.js';
import { claimSettledReports } from '../storage/visit-reports.js';
import type { Messenger } from './messenger.js';
import { PollingWorker } from './polling-worker.js';

/**
 * The visit-report worker: a loop in every server process (beside the bulk worker). Each round it
 * composes the reports that have settled (no write to their visit for the delay) into outbox
 * messages, in the transaction that claims them (SKIP LOCKED: processes share the work, none does
 * a report twice), then sends the report messages that are due. A message is claimed for an
 * attempt before it is sent, and marked SENT after: a process killed in between leaves it to be
 * sent again once its retry time passes (at least once, as bulk messages are). A failed attempt is
 * tried again later, up to MAX_ATTEMPTS.
 */
export interface ReportWorkerOptions extends Omit<ReportSending, 'db'> {
  db: Database;
  messenger: Messenger;
  logger: Logger;
  /** How long a completed visit must go unchanged before its report is composed. */
  delaySeconds: number;
  pollMs?: number;
  /** The first retry's wait; each next one doubles it (default 30 s). */
  retryBaseSeconds?: number;
}

export const MAX_ATTEMPTS = 5;
const BATCH = 20;

/** Seconds before another attempt: 30 s, 1, 2, 4 minutes... at most an hour. */
export const retryAfterSeconds = (attempts: number, base = 30) => Math.min(3600, base * 2 ** (attempts - 1));

export class VisitReportWorker extends PollingWorker {
  constructor(private readonly options: ReportWorkerOptions) {
    super({ logger: options.logger, pollMs: options.pollMs, name: 'visit report worker' });
  }

  protected round(): Promise<boolean> {
    return this.runOnce();
  }

  /** One round: compose what settled, send what is due; true when there was anything. */
  async runOnce(): Promise<boolean> {
    const composed = await this.compose();
    const sent = await this.deliver();
    return composed + sent > 0;
  }

  private compose(): Promise<number> {
    const { db, messenger, delaySeconds } = this.options;
    return db.transaction(async (tx) => {
      const settled = await claimSettledReports(tx, delaySeconds, BATCH);
      for (const report of settled) await composeReport(tx, report, messenger);
      return settled.length;
    });
  }

  private async deliver(): Promise<number> {
    const { db, messenger, logger } = this.options;
    const due = await claimDueReportMessages(db, BATCH, (attempts) => retryAfterSeconds(attempts, this.options.retryBaseSeconds));
    for (const message of due) {
      if (!this.running) break; // claimed but not tried: tried again once its retry time passes
      try {
        await messenger.send(await withReportLink(this.options, message));
        await recordReportSent(db, message);
      } catch (error) {
        const final = message.attempts >= MAX_ATTEMPTS;
        logger.warn({ err: error, message: message.id, attempts: message.attempts, final }, 'sending a visit report failed');
        await markAttemptFailed(db, message.orgId, message.id, (error as Error).message, final);
      }
    }
    return due.length;
  }
}
