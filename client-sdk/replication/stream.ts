import { createParser } from 'eventsource-parser';
import { Subject, type Observable } from 'rxjs';
import { Call } from './call.js';
import { failureOfAnswer, failureOfThrown, nextMove, protocolFailure, SyncFailure } from './failure.js';
import { describeIssues, LiveEvent, SYNC_STREAM_HEADER, type ChangeBatch, type Checkpoint } from '../../shared/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, endpointHeaders, type SyncEndpoint } from './http.js';

/**
 * The stream's answer (its headers) comes before any work but the token's check: a short wait is
 * enough, and a connection that died while it sat in the pool is given up soon.
 */
const STREAM_CONNECT_TIMEOUT_MS = 5_000;
/** Past this, a connecting stream is presumed dead once another request shows life (liveness.ts). */
const STREAM_ANSWER_EXPECTED_MS = 3_000;

/**
 * One Server-Sent-Events connection per client carrying every collection's changes (parsed with
 * eventsource-parser, so it runs wherever fetch does: Node and browsers). It reconnects by itself
 * with backoff, and each (re)connection starts with RESYNC.
 *
 * A stream is only as alive as its last bytes: the server sends a heartbeat every `heartbeatMs`
 * (announced in RESYNC), and a stream silent for 2.5 heartbeats is taken for dead (a black-holed
 * connection looks open forever) and reconnected. Connecting has a deadline too.
 */
export type StreamItem<T> = 'RESYNC' | { documents: T[]; checkpoint: Checkpoint };

export type { ChangeBatch } from '../../shared/index.js';

export interface LiveStreamOptions {
  collections: readonly string[];
  /**
   * First wait between reconnection attempts; doubles up to maxRetryMs (default 5 s: offline,
   * an attempt costs next to nothing, and the sooner one gets through after signal returns, the
   * sooner the device is in sync).
   */
  retryMs?: number;
  maxRetryMs?: number;
  /** Silence after which the stream is dead; default 2.5 x the server's heartbeat, else 45 s. */
  idleTimeoutMs?: number;
  /** Told when the stream comes alive (RESYNC) and when it dies, with why. */
  onStatus?: (connected: boolean, failure?: SyncFailure) => void;
  /** Every batch, in order, and 'RESYNC' after every (re)connection. */
  onEvent?: (event: 'RESYNC' | ChangeBatch) => void;
}

export class LiveStream {
  private readonly subjects = new Map<string, Subject<StreamItem<unknown>>>();
  private call: Call | null = null;
  private running = false;
  private attempt = 0;
  private idleTimeoutMs: number;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeRetry: (() => void) | null = null;
  private connectedId: string | null = null;

  constructor(
    private readonly endpoint: SyncEndpoint,
    private readonly options: LiveStreamOptions,
  ) {
    for (const name of options.collections) this.subjects.set(name, new Subject());
    this.idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  }

  /** One collection's items, in the shape RxDB's replication `stream$` expects. */
  events<T>(collection: string): Observable<StreamItem<T>> {
    const subject = this.subjects.get(collection);
    if (!subject) throw new Error(`The live stream does not carry ${collection}`);
    return subject.asObservable() as Observable<StreamItem<T>>;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /**
   * The id of the connection open or being opened (null between attempts). Chosen here and sent
   * with the request, so a push made while the stream connects (sync starting after time
   * offline) names it too; a push that names it is not sent back on this stream
   * (shared/sync/headers.ts). A server that answers another id is taken at its word.
   */
  get id(): string | null {
    return this.connectedId;
  }

  /** Reconnects now if waiting to (a request just got through: the network is back). */
  retryNow(): void {
    this.attempt = 0;
    this.wakeRetry?.();
  }

  /** Stops reconnecting and ends the open connection; resolves when the loop has ended. */
  stop(): Promise<void> {
    this.running = false;
    this.call?.end();
    this.wakeRetry?.();
    return this.loopDone;
  }

  /** Closes the stream for good and completes every observable. */
  async close(): Promise<void> {
    await this.stop();
    for (const subject of this.subjects.values()) subject.complete();
  }

  private async loop(): Promise<void> {
    while (this.running && !this.endpoint.signal?.aborted) {
      const attemptStarted = Date.now();
      let wait: number;
      try {
        await this.connectOnce();
        this.options.onStatus?.(false, new SyncFailure('network', 'live stream: the server ended it'));
        wait = this.backoff();
      } catch (error) {
        if (!this.running || this.endpoint.signal?.aborted) break;
        const failure = error instanceof SyncFailure ? error : failureOfThrown('live stream', error);
        this.options.onStatus?.(false, failure);
        const move = nextMove(failure);
        if ('stop' in move) break; // signed out: the client stops sync
        wait = 'wait' in move ? move.wait : move.retry === 'now' ? 0 : this.backoff();
      }
      // The backoff spaces attempts' starts: an attempt that waited out a deadline has waited already.
      await this.pause(Math.max(0, wait - (Date.now() - attemptStarted)));
    }
  }

  private pause(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      this.wakeRetry = done;
      function done() {
        clearTimeout(timer);
        self.wakeRetry = null;
        resolve();
      }
    });
  }

  private backoff(): number {
    const base = this.options.retryMs ?? 500;
    const wait = Math.min(this.options.maxRetryMs ?? 5_000, base * 2 ** Math.min(this.attempt++, 6));
    return wait * (0.75 + Math.random() / 2);
  }

  /**
   * One connection: its answer within the connect deadline, then bytes at least every idle
   * timeout. Both are deadlines of the call itself (call.ts), and the connection watch may end
   * it as dead when a newer request gets through while it is silent.
   */
  private async connectOnce(): Promise<void> {
    const call = new Call(this.endpoint, 'live stream', STREAM_ANSWER_EXPECTED_MS);
    this.call = call;
    const connectMs = Math.min(this.endpoint.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, STREAM_CONNECT_TIMEOUT_MS);
    call.deadline(connectMs);
    this.connectedId = crypto.randomUUID();
    const query = new URLSearchParams({ collections: this.options.collections.join(','), stream: this.connectedId });
    try {
      const res = await (this.endpoint.fetch ?? fetch)(`${this.endpoint.baseUrl}/sync/stream?${query}`, {
        headers: { ...endpointHeaders(this.endpoint), accept: 'text/event-stream' },
        signal: call.signal,
      });
      call.answered(this.idleTimeoutMs / 2);
      if (!res.ok || !res.body) throw failureOfAnswer('live stream', res.status, res.headers, await call.until(res.text()).catch(() => ''));
      this.connectedId = res.headers.get(SYNC_STREAM_HEADER);
      await this.read(res.body, call);
    } catch (error) {
      throw call.failure(error);
    } finally {
      this.connectedId = null;
      call.end();
      if (this.call === call) this.call = null;
    }
  }

  /** Reads events until the stream ends or falls silent for longer than the idle timeout. */
  private async read(body: ReadableStream<Uint8Array>, call: Call): Promise<void> {
    const parser = createParser({ onEvent: (event) => this.dispatch(parseServerEvent(event.data)) });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    // Heartbeats come every idle/2.5. The next is overdue (liveness.ts) once 1.75 of them are
    // missing (7 s with the default 4 s), and the stream dead at the idle time. Overdue at 1.25 took
    // healthy streams for dead whenever a loaded server sent a heartbeat a second late and a pull
    // answered meanwhile: each time a reconnect, a RESYNC and a round of pulls.
    const alive = () => {
      call.alive(this.idleTimeoutMs * 0.7);
      call.deadline(this.idleTimeoutMs, `silent for ${this.idleTimeoutMs} ms`);
    };
    alive();
    try {
      for (;;) {
        const { done, value } = await call.until(reader.read());
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        alive(); // after the events: a RESYNC may have announced the heartbeat, and so the idle time
      }
    } finally {
      // A read may still be pending (see Call.until): cancel it, without waiting on it either.
      void reader.cancel().catch(() => undefined);
    }
  }

  private dispatch(event: LiveEvent): void {
    if (event.type === 'RESYNC') {
      this.attempt = 0;
      if (event.heartbeatMs && !this.options.idleTimeoutMs) this.idleTimeoutMs = Math.round(event.heartbeatMs * 2.5);
      this.options.onStatus?.(true);
      this.options.onEvent?.('RESYNC');
      for (const subject of this.subjects.values()) subject.next('RESYNC');
      return;
    }
    const { type: _type, ...batch } = event;
    this.options.onEvent?.(batch);
    this.subjects.get(event.collection)?.next({ documents: event.documents, checkpoint: event.checkpoint });
  }
}


/** An event as the server sends it, checked (shared/sync/live.ts): a malformed one fails the stream as a protocol error. */
function parseServerEvent(data: string): LiveEvent {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw protocolFailure('live stream', 'an event is not JSON');
  }
  const result = LiveEvent.safeParse(event);
  if (!result.success) throw protocolFailure('live stream', `an event is not the protocol's (${describeIssues(result.error.issues, { limit: 3 })})`);
  return result.data;
}
