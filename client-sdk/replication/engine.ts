import { applyLiveBatch, pullToEnd } from './puller.js';
import { pushBatch, type PushResult } from './pusher.js';
import type { DocState } from './replica-store.js';
import type { ChangeBatch } from './stream.js';
import type { SyncContext } from './sync-context.js';

/**
 * The client's sync loop. One loop for every collection, so nothing of one collection runs
 * concurrently with anything else of it. A cycle pushes what the outbox holds (collections in
 * dependency order: a visit's customer goes first), then, when asked, pulls every collection to
 * the end of its feed, then applies the live batches that arrived. A reconnected stream asks for
 * a full cycle, so the pull runs once pushes have settled. A failed cycle is retried with backoff,
 * at once when the stream reconnects or the app writes.
 *
 * Why not RxDB's replicateRxCollection: its downstream drops a RESYNC queued behind a stream
 * event held while a push was in flight, and moves its checkpoint past a gap it never pulls
 * (RxDB 17.6, replication-protocol/downstream.ts, addNewTask); and its push carries no identity
 * of a change, so a push whose answer was lost cannot be told from a new one. The server speaks
 * the same protocol to both (see README, Sync).
 */
export interface SyncObserver {
  pushed(collection: string, result: PushResult): void;
  cycleSucceeded(): void;
  failed(error: unknown): void;
}

export interface EngineOptions {
  /** Replicated collections, in dependency order. */
  collections: readonly string[];
  /** Those the device may write (the rest are never pushed). */
  writable: ReadonlySet<string>;
  retryMs: number;
  maxRetryMs?: number;
}

interface Waiter {
  ticket: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class SyncEngine {
  private wantPush = true;
  private wantPull = true;
  private readonly batches: ChangeBatch<DocState>[] = [];
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private tickets = 0;
  private waiters: Waiter[] = [];
  private failures = 0;

  constructor(
    private readonly ctx: SyncContext,
    private readonly options: EngineOptions,
    private readonly observer: SyncObserver,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp();
    await this.loopDone;
    for (const w of this.waiters.splice(0)) w.reject(new Error('sync stopped'));
  }

  /** A local change was made: push soon. */
  pushSoon(): void {
    this.wantPush = true;
    this.wakeUp();
  }

  /** The stream (re)connected: push, then pull everything from the checkpoints, now. */
  resync(): void {
    this.wantPush = this.wantPull = true;
    this.failures = 0;
    this.wakeUp();
  }

  received(batch: ChangeBatch<DocState>): void {
    this.batches.push(batch);
    this.wakeUp();
  }

  /** Resolves after a full cycle (push and pull to the end) that started after this call. */
  synced(): Promise<void> {
    if (!this.running) return Promise.reject(new Error('sync is not started'));
    const ticket = ++this.tickets;
    this.wantPush = this.wantPull = true;
    this.wakeUp();
    return new Promise((resolve, reject) => this.waiters.push({ ticket, resolve, reject }));
  }

  private wakeUp(): void {
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = ms === Infinity ? undefined : setTimeout(done, ms);
      this.wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    }).finally(() => {
      this.wake = null;
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      if (!this.wantPush && !this.wantPull && !this.batches.length) {
        await this.sleep(Infinity);
        continue;
      }
      // What this cycle does is decided now: a request made while it runs asks for another.
      const serving = this.tickets;
      const pushing = this.wantPush;
      const pulling = this.wantPull;
      this.wantPush = this.wantPull = false;
      try {
        if (!(await this.cycle(pushing, pulling))) break; // stopped midway: nothing is settled
        this.failures = 0;
        this.observer.cycleSucceeded();
        if (pulling) this.settleWaiters(serving);
      } catch (error) {
        if (!this.running) break;
        this.wantPush = true; // cheap when the outbox is empty, and a failed push must be retried
        if (pulling) this.wantPull = true;
        this.observer.failed(error);
        const wait = Math.min(this.options.maxRetryMs ?? 30_000, this.options.retryMs * 2 ** Math.min(this.failures++, 8));
        await this.sleep(wait * (0.75 + Math.random() / 2));
      }
    }
  }

  /** Runs one cycle; false when sync was stopped before it finished. */
  private async cycle(pushing: boolean, pulling: boolean): Promise<boolean> {
    let failure: unknown = null;
    if (pushing) {
      for (const name of this.options.collections) {
        if (!this.options.writable.has(name)) continue;
        // One collection's failure (say, a request it keeps refusing) does not hold up the rest.
        failure = (await this.pushAll(name).then(() => null, (error: unknown) => error)) ?? failure;
        if (!this.running) return false;
      }
    }
    if (pulling) {
      for (const name of this.options.collections) {
        await pullToEnd(this.ctx, name);
        if (!this.running) return false;
      }
    }
    while (this.batches.length && this.running) {
      if ((await applyLiveBatch(this.ctx, this.batches.shift()!)) === 'gap') this.wantPull = true;
    }
    if (failure) throw failure;
    return this.running;
  }

  private async pushAll(name: string): Promise<void> {
    for (;;) {
      const result = await pushBatch(this.ctx, name);
      if (!result) return;
      if (result.rows.length) this.observer.pushed(name, result);
      if (!result.more || !this.running) return;
    }
  }

  private settleWaiters(serving: number): void {
    const ready = this.waiters.filter((w) => w.ticket <= serving);
    this.waiters = this.waiters.filter((w) => w.ticket > serving);
    for (const w of ready) w.resolve();
  }
}
