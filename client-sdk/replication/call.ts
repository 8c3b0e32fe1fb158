import { failureOfThrown, SyncFailure } from './failure.js';
import type { ConnectionWatch, WatchedCall } from './liveness.js';

/**
 * One request's abort: its own AbortController, aborted by its own timer (the deadline), by the
 * client's close, or by the connection watch when it is presumed dead.
 *
 * Never `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: Node 20 holds the sources of
 * `any()` weakly, so a timeout signal that only it references is collected at the next garbage
 * collection and never fires; the request then has no deadline at all (a device waited 73 s on a
 * push with a 30 s deadline). A timer this object holds, and clears when the call ends, cannot
 * vanish. `test/sdk-deadlines.test.ts` forces collections while requests hang to prove it.
 */
export interface CallScope {
  /** Aborted when the client closes. */
  signal?: AbortSignal;
  watch?: ConnectionWatch;
}

/** A slow link's rate, for the time a request's body takes to go out. */
export const SLOW_LINK_BYTES_PER_SECOND = 32 * 1024;

/** When an answer is expected by: `baseMs`, plus the time `bodyBytes` take on a slow link. */
export const expectedWithin = (baseMs: number, bodyBytes = 0) => baseMs + (bodyBytes / SLOW_LINK_BYTES_PER_SECOND) * 1000;

export class Call {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly watched: WatchedCall | undefined;
  private readonly parent: AbortSignal | undefined;
  private readonly watch: ConnectionWatch | undefined;
  private readonly onParentAbort = () => this.controller.abort(this.parent?.reason);

  constructor(
    scope: CallScope,
    /** How errors name the request, e.g. "pull services". */
    readonly what: string,
    /** When its answer is expected by (see liveness.ts, "overdue"): a few seconds, plus its body's time on a slow link. */
    expectedMs: number,
  ) {
    this.parent = scope.signal;
    this.watch = scope.watch;
    if (this.parent?.aborted) this.controller.abort(this.parent.reason);
    else this.parent?.addEventListener('abort', this.onParentAbort, { once: true });
    this.watched = scope.watch?.track(
      () => this.controller.abort(new SyncFailure('network', `${what}: abandoned (its connection died: a newer request got through)`, { presumedDead: true })),
      expectedMs,
    );
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)starts the deadline: if it passes before the next call of this, the request fails as `network`. */
  deadline(ms: number, problem = `no answer within ${ms} ms`): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new SyncFailure('network', `${this.what}: ${problem}`)), ms);
  }

  /** Bytes arrived: the connection under this request is alive. `nextWithinMs`: when more are due (a stream). */
  alive(nextWithinMs?: number): void {
    if (this.watched) this.watch?.alive(this.watched, nextWithinMs);
  }

  /** The answer's headers arrived: the network works, and older silent requests are on dead connections. */
  answered(nextWithinMs?: number): void {
    if (this.watched) this.watch?.answered(this.watched, nextWithinMs);
  }

  /**
   * `work`, unless this call is aborted first. Node 20's fetch (undici 6) can leave a body read
   * pending forever when its request is aborted while the body streams, on a loaded machine
   * (nodejs/undici#4232 and nodejs/undici#4089); a deadline or a close must end the call all the same.
   */
  until<T>(work: Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) {
      work.catch(() => undefined);
      return Promise.reject(signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /**
   * What the call ended with, as the caller should see it: the client's close reason as is (sync
   * is stopping, nothing to retry), otherwise a SyncFailure. A failure for want of a network opens
   * a new epoch of the connection watch (unless this call was itself presumed dead).
   */
  failure(error: unknown): unknown {
    const reason = this.controller.signal.aborted ? this.controller.signal.reason : error;
    if ((this.parent?.aborted && reason === this.parent.reason) || reason === this.ended) return reason;
    const failure = failureOfThrown(this.what, reason);
    if (failure.kind === 'network' && !failure.details.presumedDead) this.watch?.trouble();
    return failure;
  }

  /** Clears the deadline and forgets the call; aborts whatever of it is still running (not a failure). */
  end(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onParentAbort);
    if (this.watched) this.watch?.untrack(this.watched);
    if (!this.controller.signal.aborted) this.controller.abort(this.ended);
  }

  private readonly ended = new Error('ended by the client');
}
