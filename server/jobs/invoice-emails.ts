import type { Logger } from 'pino';
import { invoiceEmailToSend, recordInvoiceSent, type InvoiceSending } from '../operations/billing/invoice-delivery.js';
import { claimDueInvoiceMessages, markAttemptFailed, markMessage, markStored } from '../storage/outgoing-messages.js';
import type { Messenger } from './messenger.js';
import { PollingWorker } from './polling-worker.js';
import { MAX_ATTEMPTS, retryAfterSeconds } from './visit-reports.js';

/**
 * The invoice-email worker: a loop in every server process that runs the bulk worker. Each round
 * it claims the invoice emails due (SKIP LOCKED: processes share them, never try one at once), and
 * for each makes the invoice's PDF and link, sends it with the PDF attached, then marks it SENT and
 * the invoice's sentAt. As report messages: a process killed between the send and the mark sends
 * that email again once its retry time passes (at least once towards SMTP); a refused attempt is
 * tried again after 30 s, 1, 2 and 4 minutes, then FAILED. In a process with no SMTP server
 * configured the emails are kept as STORED.
 *
 * One email at a time per process: making a PDF takes tens of milliseconds of this thread, so
 * between two PDFs the process answers its requests.
 */
export interface InvoiceWorkerOptions extends InvoiceSending {
  messenger: Messenger;
  logger: Logger;
  pollMs?: number;
  /** The first retry's wait; each next one doubles it (default 30 s). */
  retryBaseSeconds?: number;
}

const BATCH = 20;

export class InvoiceEmailWorker extends PollingWorker {
  constructor(private readonly options: InvoiceWorkerOptions) {
    super({ logger: options.logger, pollMs: options.pollMs, name: 'invoice email worker' });
  }

  protected async round(): Promise<boolean> {
    return (await this.runOnce()) > 0;
  }

  /** One round: sends the invoice emails due; answers how many were claimed. */
  async runOnce(): Promise<number> {
    const { db, messenger, logger } = this.options;
    const due = await claimDueInvoiceMessages(db, BATCH, (attempts) => retryAfterSeconds(attempts, this.options.retryBaseSeconds));
    for (const message of due) {
      if (!this.running) break; // claimed but not tried: tried again once its retry time passes
      if (!messenger.canSend('EMAIL')) {
        await markStored(db, message.orgId, message.id);
        continue;
      }
      try {
        const email = await invoiceEmailToSend(this.options, message);
        if (!email) {
          await markMessage(db, message.orgId, message.id, 'FAILED', 'the invoice is gone');
          continue;
        }
        await messenger.send(email);
        await recordInvoiceSent(db, message);
      } catch (error) {
        const final = message.attempts >= MAX_ATTEMPTS;
        logger.warn({ err: error, message: message.id, attempts: message.attempts, final }, 'sending an invoice email failed');
        await markAttemptFailed(db, message.orgId, message.id, (error as Error).message, final);
      }
    }
    return due.length;
  }
}
