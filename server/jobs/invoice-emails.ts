import type { Logger } from 'pino';
import { invoiceEmailToSend, recordInvoicesSent, startInvoiceRound, type InvoiceRound, type InvoiceSending } from '../operations/billing/invoice-delivery.js';
import { InvoicePdfPool, type InvoicePdfRenderer } from '../operations/pdf/invoice-pdf-pool.js';
import { claimDueInvoiceMessages, markAttemptFailed, markMessage, markStoredMany, type OutboxMessage } from '../storage/outgoing-messages.js';
import type { Messenger } from './messenger.js';
import { PollingWorker } from './polling-worker.js';
import { MAX_ATTEMPTS, retryAfterSeconds } from './visit-reports.js';

/**
 * The invoice-email worker: a loop in every server process that runs the bulk worker. Each round
 * it claims up to BATCH invoice emails due (SKIP LOCKED: processes share them, never try one at
 * once), makes their links (one statement), and sends them IN_FLIGHT at a time: each invoice is
 * loaded, its PDF made on a PDF thread (INVOICE_PDF_WORKERS of them; this thread only reads and
 * sends) and the email sent with it attached over the messenger's pooled SMTP connections. An
 * accepted email is marked SENT (and its invoice's sentAt set) as soon as it is accepted, with the
 * others accepted meanwhile (SentMarks): not at the round's end, since one slow send or PDF could
 * hold the round past its claim, and another process would send the accepted ones again.
 *
 * As report messages: at least once towards SMTP. A process killed during a round sends that
 * round's emails again (those already accepted included) once their retry time passes. A refused
 * attempt is tried again after 30 s, 1, 2 and 4 minutes, then FAILED; an email whose invoice is
 * gone is FAILED at once. In a process with no SMTP server configured the emails are kept as
 * STORED.
 */
export interface InvoiceWorkerOptions extends InvoiceSending {
  messenger: Messenger;
  logger: Logger;
  pollMs?: number;
  /** The first retry's wait; each next one doubles it (default 30 s). */
  retryBaseSeconds?: number;
  /** INVOICE_PDF_WORKERS: threads making PDFs (default: one per core but one, at most 4). */
  pdfWorkers?: number;
}

/** Claimed per round: enough to keep IN_FLIGHT busy, few enough that a killed round resends little. */
const BATCH = 32;
/**
 * Emails in hand at once: while one waits for its PDF another's invoice is read and another's
 * SMTP reply awaited. Bounds memory too: at most this many PDFs held, and BATCH messages.
 */
const IN_FLIGHT = 4;

export class InvoiceEmailWorker extends PollingWorker {
  /** The PDF threads; the worker's test reads how many documents they made. */
  readonly pdfs: InvoicePdfRenderer;

  constructor(private readonly options: InvoiceWorkerOptions) {
    super({ logger: options.logger, pollMs: options.pollMs, name: 'invoice email worker' });
    this.pdfs = new InvoicePdfPool(options.pdfWorkers);
  }

  protected async round(): Promise<boolean> {
    return (await this.runOnce()) > 0;
  }

  /** Finishes the round in hand, then ends the PDF threads. */
  override async stop(): Promise<void> {
    await super.stop();
    await this.pdfs.close();
  }

  /** One round: sends the invoice emails due; answers how many were claimed. */
  async runOnce(): Promise<number> {
    const { db, messenger } = this.options;
    const due = await claimDueInvoiceMessages(db, BATCH, (attempts) => retryAfterSeconds(attempts, this.options.retryBaseSeconds));
    if (!due.length) return 0;
    if (!messenger.canSend('EMAIL')) {
      await markStoredMany(db, due);
      return due.length;
    }
    const round = await startInvoiceRound(this.options, due, this.pdfs);
    const marks = new SentMarks(db);
    const queue = [...due];
    const lane = async () => {
      // Stopping: what is claimed but not begun is tried again once its retry time passes.
      for (let message = queue.shift(); message && this.running; message = queue.shift()) {
        if (await this.sendOne(round, message)) marks.add(message);
      }
    };
    const lanes = await Promise.allSettled(Array.from({ length: Math.min(IN_FLIGHT, due.length) }, lane));
    await marks.done();
    const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    return due.length;
  }

  /** Sends one email; true when the mail server accepted it. A failure is recorded on the message. */
  private async sendOne(round: InvoiceRound, message: OutboxMessage): Promise<boolean> {
    const { db, messenger, logger } = this.options;
    try {
      const email = await invoiceEmailToSend(this.options, round, message);
      if (!email) {
        await markMessage(db, message.orgId, message.id, 'FAILED', 'the invoice is gone');
        return false;
      }
      await messenger.send(email);
      return true;
    } catch (error) {
      const final = message.attempts >= MAX_ATTEMPTS;
      logger.warn({ err: error, message: message.id, attempts: message.attempts, final }, 'sending an invoice email failed');
      await markAttemptFailed(db, message.orgId, message.id, (error as Error).message, final);
      return false;
    }
  }
}

/**
 * Marks accepted emails SENT as they come: one marking at a time, each taking every email accepted
 * since the last began, so marks follow sends closely and in few transactions.
 */
class SentMarks {
  private readonly pending: OutboxMessage[] = [];
  private marking: Promise<void> = Promise.resolve();
  private idle = true;
  /** A marking that failed: its emails stay PENDING and are sent again once their claim lapses. */
  private failure: unknown = null;

  constructor(private readonly db: InvoiceWorkerOptions['db']) {}

  add(message: OutboxMessage): void {
    this.pending.push(message);
    if (this.idle) this.marking = this.drain().catch((error: unknown) => void (this.failure ??= error));
  }

  /** Every accepted email marked; a marking's failure is thrown here. */
  async done(): Promise<void> {
    await this.marking;
    if (this.pending.length) await this.drain();
    if (this.failure) throw this.failure;
  }

  private async drain(): Promise<void> {
    this.idle = false;
    try {
      while (this.pending.length) await recordInvoicesSent(this.db, this.pending.splice(0));
    } finally {
      this.idle = true;
    }
  }
}
