import { nextMove, SyncFailure, type NextMove } from './failure.js';
import { applyLiveBatch, pullPriorityBands, pullToEnd } from './puller.js';
import { pushBatch, type PushResult } from './pusher.js';
import type { ChangeBatch } from './stream.js';
import type { SyncContext } from './sync-context.js';

/**
 * The client's sync loop. One loop for every collection, so nothing of one collection runs
 * concurrently with anything else of it. A cycle pushes what the pending changes holds (collections in
 * dependency order: a visit's customer goes first), then, when asked, pulls every collection to
 * the end of its feed, then applies the live batches that arrived. A reconnected stream asks for
 * a full cycle, so the pull runs once pushes have settled. What follows a failed cycle depends on
 * its kind only (failure.ts, `nextMove`): a network or server failure is retried with backoff (at
 * once when the stream reconnects or the app writes, and at once when the failed request was
 * abandoned on a dead connection because the network is back); a 429 waits what the server asked,
 * whatever wakes the loop meanwhile; a 401 stops sync, for no retry can succeed.
 *
 * Why not RxDB's replicateRxCollection: its downstream drops a RESYNC queued behind a stream
 * event held while a push was in flight, and moves its checkpoint past a gap it never pulls
 * (RxDB 17.6, replication-protocol/downstream.ts, addNewTask); and its push carries no identity
 * of a change, so a push whose answer was lost cannot be told from a new one. The server speaks
 * the same protocol to both (shared/sync/README.md).
 */
export interface SyncObserver {
  pushed(collection: string, result: PushResult): void;
  cycleSucceeded(): void;
  /** A cycle failed; `move` is what the engine does next (`stop`: it has stopped). */
  failed(error: unknown, move: NextMove): void;
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
  private readonly batches: ChangeBatch[] = [];
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private tickets = 0;
  private waiters: Waiter[] = [];
  private failures = 0;
  /** No request before this time (a 429's Retry-After). */
  private notBefore = 0;

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

  /** Stops the loop; whoever waits for a cycle is told `why`. */
  async stop(why: Error = new Error('sync stopped')): Promise<void> {
    this.running = false;
    this.wakeUp();
    await this.loopDone;
    for (const w of this.waiters.splice(0)) w.reject(why);
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

  received(batch: ChangeBatch): void {
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
      const cycleStarted = Date.now();
      try {
        if (!(await this.cycle(pushing, pulling))) break; // stopped midway: nothing is settled
        this.failures = 0;
        this.observer.cycleSucceeded();
        if (pulling) this.settleWaiters(serving);
      } catch (error) {
        if (!this.running) break;
        this.wantPush = true; // cheap when the pending changes is empty, and a failed push must be retried
        if (pulling) this.wantPull = true;
        // Anything but a SyncFailure is the replica's or a bug: retried like an outage, and shown.
        const move: NextMove = error instanceof SyncFailure ? nextMove(error) : { retry: 'backoff' };
        this.observer.failed(error, move);
        if ('stop' in move) {
          this.running = false;
          break;
        }
        await this.sleep(this.waitAfter(move, Date.now() - cycleStarted));
      }
      await this.respectRetryAfter();
    }
  }

  /**
   * How long to wait before the next cycle. The backoff spaces the starts of attempts, so a cycle
   * that waited out a deadline has waited already; a 429's wait counts from its answer.
   */
  private waitAfter(move: { retry: 'now' | 'backoff' } | { wait: number }, tookMs: number): number {
    if ('wait' in move) {
      this.notBefore = Date.now() + move.wait;
      return move.wait;
    }
    if (move.retry === 'now') return 0;
    const backoff = Math.min(this.options.maxRetryMs ?? 30_000, this.options.retryMs * 2 ** Math.min(this.failures++, 8));
    return Math.max(0, backoff * (0.75 + Math.random() / 2) - tookMs);
  }

  /** Woken early (a write, a reconnect) while the server asked to wait: wait the rest. */
  private async respectRetryAfter(): Promise<void> {
    while (this.running && Date.now() < this.notBefore) await this.sleep(this.notBefore - Date.now());
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
      // A first sync brings what the device needs first (today's route), then everything.
      await pullPriorityBands(this.ctx, this.options.collections, () => this.running);
      if (!this.running) return false;
      for (const name of this.options.collections) {
        await pullToEnd(this.ctx, name);
        if (!this.running) return false;
      }
      await this.ctx.firstSync?.completed();
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
      // The stream leaves out what a push said needs no pulling back: if the device could not
      // take that answer's checkpoint, the rows come by a pull instead.
      if (result.pull) this.wantPull = true;
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
