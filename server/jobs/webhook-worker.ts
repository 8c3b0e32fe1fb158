import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhooksConfig } from '../config.js';
import { postEvent, type DeliveryNetwork, type HttpAnswer } from '../operations/events/attempt.js';
import { disableWithNotice } from '../operations/events/notices.js';
import { retryWaitSeconds } from '../operations/events/schedule.js';
import type { Database } from '../storage/db.js';
import { claimDueNotices, markAttemptFailed, markMessage } from '../storage/outgoing-messages.js';
import { claimDueAttempts, endpointsFailingSince, fanOut, organizationsBehind, recordAttempts, REDELIVERY_NOTICE, type Attempt, type AttemptOutcome } from '../storage/webhook-deliveries.js';
import type { Messenger } from './messenger.js';

/**
 * The webhook delivery worker: a loop in every server process that runs the bulk worker.
 *
 * New events wake it at once (their transaction NOTIFYs pool_events at commit, to every process
 * listening); a poll catches what a lost notification or a restart left behind, and retries as
 * they come due. Each round it fans out the woken organizations' new events into deliveries,
 * claiming their first attempts in the same statement (an endpoint is fanned out by one process
 * at a time), claims the retries that are due (SKIP LOCKED), makes the attempts concurrently, and
 * records what they came to in batches. A claim holds a delivery for twice the attempt deadline:
 * a process killed between an attempt and its record leaves the delivery to be attempted again
 * after that, with the same webhook-id (at least once, never lost).
 *
 * A 410 Gone disables the endpoint at once; an endpoint with no success for
 * WEBHOOK_DISABLE_AFTER_HOURS while failing is disabled; either way the organization is told
 * (notices.ts), and the worker sends those notices by email like report messages (with retries).
 */
export interface WebhookWorkerOptions {
  db: Database;
  logger: Logger;
  messenger: Messenger;
  settings: WebhooksConfig;
  network?: DeliveryNetwork;
  /** Jitter's randomness (tests fix it). */
  random?: () => number;
  /**
   * Test hook: runs once an attempt was answered and before it is recorded. A test kills the
   * process here to show the delivery is made again, with the same id.
   */
  afterAttempt?: (attempt: Attempt, answer: HttpAnswer) => void | Promise<void>;
}

/** Events fanned out per endpoint per statement. */
const FAN_OUT_BATCH = 500;
/** How soon to look again at an organization whose endpoint another process had locked. */
const LOCKED_RETRY_MS = 20;
const NOTICE_BATCH = 10;
/** A retry is looked for this long after it comes due (the database's clock may be a little behind). */
const RETRY_WAKE_MARGIN_MS = 20;
const noticeRetrySeconds = (attempts: number) => Math.min(3600, 30 * 2 ** (attempts - 1));
const MAX_NOTICE_ATTEMPTS = 5;

export class WebhookWorker {
  readonly id = `webhooks-${randomUUID()}`;
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private stopListening: (() => Promise<void>) | null = null;
  /** Organizations with new events to fan out. */
  private readonly dirty = new Set<string>();
  private sweepDue = true;
  /**
   * Deliveries may be due that no fan-out claimed (a retry come due, a redelivery, a fan-out with
   * no free slot). Claims are made only then and at each poll, not at every wake-up: a delivered
   * row leaves a dead entry in the due index until vacuum, and a claim at every event would walk
   * them a hundred times a second.
   */
  private claimWanted = true;
  /** An endpoint was disabled: its notice goes out in the next round, not at the next poll. */
  private noticesDue = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly answered: { attempt: Attempt; outcome: AttemptOutcome }[] = [];
  private lastPoll = 0;

  constructor(private readonly options: WebhookWorkerOptions) {}

  private get leaseSeconds(): number {
    return (2 * this.options.settings.attemptTimeoutMs) / 1000;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopListening = await this.options.db.listen(
      'pool_events',
      (payload) => {
        if (payload.endsWith(REDELIVERY_NOTICE)) this.claimWanted = true;
        else this.dirty.add(payload);
        this.wake();
      },
      () => {
        this.sweepDue = true;
        this.wake();
      },
    );
    this.loop = this.run();
  }

  /** Stops taking new work, lets the attempts in flight finish and records them. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.stopListening?.();
    await this.loop;
  }

  /** Looks for work now (new events, a redelivery). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.round();
      } catch (error) {
        this.options.logger.error({ err: error }, 'webhook worker round failed');
        await this.sleep(this.options.settings.pollMs);
      }
      if (this.running && !this.woken && !this.answered.length) await this.sleep(this.untilNextPoll());
    }
    await Promise.all(this.inFlight);
    await this.record().catch((error: unknown) => this.options.logger.error({ err: error }, 'recording webhook attempts failed'));
  }

  private untilNextPoll(): number {
    return Math.max(0, this.lastPoll + this.options.settings.pollMs - Date.now());
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
      if (this.woken) done();
    }).then(() => {
      this.wakeUp = null;
    });
  }

  /** One round: record what was answered, fan out new events, claim due retries, send notices. */
  private async round(): Promise<void> {
    this.woken = false;
    await this.record();
    const polling = Date.now() - this.lastPoll >= this.options.settings.pollMs;
    if (polling) this.lastPoll = Date.now();
    if (polling || this.sweepDue) {
      this.sweepDue = false;
      for (const orgId of await organizationsBehind(this.options.db)) this.dirty.add(orgId);
    }
    await this.fanOutDirty();
    if (polling || this.claimWanted) await this.claimDue();
    if (polling || this.noticesDue) {
      this.noticesDue = false;
      await this.sendNotices();
    }
  }

  private free(): number {
    return this.options.settings.concurrency - this.inFlight.size;
  }

  private async fanOutDirty(): Promise<void> {
    for (const orgId of [...this.dirty]) {
      if (!this.running) return;
      this.dirty.delete(orgId);
      const { attempts, unclaimed, more, skipped } = await fanOut(this.options.db, orgId, { batch: FAN_OUT_BATCH, claim: Math.max(0, this.free()), leaseSeconds: this.leaseSeconds });
      for (const attempt of attempts) this.begin(attempt);
      if (unclaimed) this.claimWanted = true;
      if (more) {
        this.dirty.add(orgId);
        this.woken = true;
      } else if (skipped) {
        // Another process holds an endpoint of this organization; it may have read before the newest events.
        setTimeout(() => {
          this.dirty.add(orgId);
          this.wake();
        }, LOCKED_RETRY_MS).unref();
      }
    }
  }

  private async claimDue(): Promise<void> {
    const free = this.free();
    if (free <= 0 || !this.running) return;
    this.claimWanted = false;
    const due = await claimDueAttempts(this.options.db, free, this.leaseSeconds);
    for (const attempt of due) this.begin(attempt);
    // A full claim may have left more due: claim again as slots free up.
    if (due.length === free) this.claimWanted = this.woken = true;
  }

  /** Starts an attempt; its outcome waits in `answered` for the next record. */
  private begin(attempt: Attempt): void {
    const running = this.attempt(attempt)
      .catch((error: unknown) => this.options.logger.error({ err: error, event: attempt.eventId }, 'a webhook attempt failed unexpectedly; its claim lapses and it is tried again'))
      .finally(() => {
        this.inFlight.delete(running);
        this.wake();
      });
    this.inFlight.add(running);
  }

  private async attempt(attempt: Attempt): Promise<void> {
    const { settings } = this.options;
    const answer: HttpAnswer = attempt.eventType
      ? await postEvent(attempt, { ...settings, network: this.options.network })
      : { statusCode: null, error: 'the event is no longer kept (older than 30 days)', retryAfterSeconds: null, durationMs: 0, attemptedAt: new Date() };
    await this.options.afterAttempt?.(attempt, answer);
    const succeeded = answer.error === null;
    const gone = answer.statusCode === 410 || !attempt.eventType;
    this.answered.push({
      attempt,
      outcome: {
        id: randomUUID(),
        attemptedAt: answer.attemptedAt.toISOString(),
        durationMs: answer.durationMs,
        statusCode: answer.statusCode,
        error: answer.error,
        succeeded,
        retryInSeconds: succeeded || gone ? null : retryWaitSeconds(attempt.attempt, settings.retrySchedule, answer.retryAfterSeconds, this.options.random),
      },
    });
    if (!succeeded) this.options.logger.debug({ endpoint: attempt.endpointId, event: attempt.eventId, attempt: attempt.attempt, error: answer.error }, 'webhook attempt failed');
  }

  /** Records the answered attempts (one statement per organization), then disables endpoints that are gone or failing too long. */
  private async record(): Promise<void> {
    if (!this.answered.length) return;
    const batch = this.answered.splice(0);
    const byOrg = new Map<string, typeof batch>();
    for (const done of batch) byOrg.set(done.attempt.orgId, [...(byOrg.get(done.attempt.orgId) ?? []), done]);
    for (const [orgId, done] of byOrg) {
      await recordAttempts(this.options.db, done);
      await this.disableBroken(orgId, done);
    }
    // Look for each retry when it comes due (it is due from its record's time on), not at the next
    // poll; another process may take it first, which costs nothing.
    for (const retryIn of new Set(batch.map((d) => d.outcome.retryInSeconds))) {
      if (retryIn !== null) {
        setTimeout(() => {
          this.claimWanted = true;
          this.wake();
        }, retryIn * 1000 + RETRY_WAKE_MARGIN_MS).unref();
      }
    }
  }

  private async disableBroken(orgId: string, done: { attempt: Attempt; outcome: AttemptOutcome }[]): Promise<void> {
    const { db, messenger, settings } = this.options;
    const canEmail = messenger.canSend('EMAIL');
    const gone = new Set(done.filter((d) => d.attempt.eventType && d.outcome.statusCode === 410).map((d) => d.attempt.endpointId));
    const disabled = (endpoint: unknown) => {
      if (endpoint) this.noticesDue = this.woken = true;
    };
    for (const endpointId of gone) {
      disabled(await disableWithNotice(db, orgId, endpointId, 'It answered 410 Gone: the receiver says it no longer exists.', canEmail));
    }
    const failing = [...new Set(done.filter((d) => !d.outcome.succeeded && !gone.has(d.attempt.endpointId)).map((d) => d.attempt.endpointId))];
    const before = new Date(Date.now() - settings.disableAfterHours * 3_600_000);
    for (const endpoint of await endpointsFailingSince(db, failing.map((endpointId) => ({ orgId, endpointId })), before)) {
      const reason = `No delivery has succeeded since ${endpoint.failingSince}: every attempt for ${settings.disableAfterHours} hours failed.`;
      disabled(await disableWithNotice(db, orgId, endpoint.endpointId, reason, canEmail));
    }
  }

  /** Sends the notices (endpoint disabled) due, by email. */
  private async sendNotices(): Promise<void> {
    const { db, messenger, logger } = this.options;
    if (!messenger.canSend('EMAIL')) return;
    for (const notice of await claimDueNotices(db, NOTICE_BATCH, noticeRetrySeconds)) {
      try {
        await messenger.send(notice);
        await markMessage(db, notice.orgId, notice.id, 'SENT', null);
      } catch (error) {
        logger.warn({ err: error, message: notice.id }, 'sending a notice failed');
        await markAttemptFailed(db, notice.orgId, notice.id, (error as Error).message, notice.attempts >= MAX_NOTICE_ATTEMPTS);
      }
    }
  }
}
