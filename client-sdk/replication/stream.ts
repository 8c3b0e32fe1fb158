import { createParser } from 'eventsource-parser';
import { Subject, type Observable } from 'rxjs';
import { DEFAULT_REQUEST_TIMEOUT_MS, untilAborted, type Checkpoint, type SyncEndpoint } from './http.js';

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

/** A batch of changes: everything in the collection's feed after `since`, up to `checkpoint`. */
export interface ChangeBatch<T = unknown> {
  collection: string;
  documents: T[];
  checkpoint: Checkpoint;
  /** Absent from servers before `since` existed: such a batch can only trigger a pull. */
  since?: Checkpoint;
}

type ServerEvent = { type: 'RESYNC'; heartbeatMs?: number } | ({ type: 'changes' } & ChangeBatch);

export interface LiveStreamOptions {
  collections: readonly string[];
  /** First wait between reconnection attempts; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  /** Silence after which the stream is dead; default 2.5 x the server's heartbeat, else 45 s. */
  idleTimeoutMs?: number;
  /** Told when the stream comes alive (RESYNC) and when it dies. */
  onStatus?: (connected: boolean, error?: unknown) => void;
  /** Every batch, in order, and 'RESYNC' after every (re)connection. */
  onEvent?: (event: 'RESYNC' | ChangeBatch) => void;
}

export class LiveStream {
  private readonly subjects = new Map<string, Subject<StreamItem<unknown>>>();
  private abort: AbortController | null = null;
  private running = false;
  private attempt = 0;
  private idleTimeoutMs: number;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeRetry: (() => void) | null = null;

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

  /** Reconnects now if waiting to (a request just got through: the network is back). */
  retryNow(): void {
    this.attempt = 0;
    this.wakeRetry?.();
  }

  /** Stops reconnecting and ends the open connection; resolves when the loop has ended. */
  stop(): Promise<void> {
    this.running = false;
    this.abort?.abort();
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
      try {
        await this.connectOnce();
        this.options.onStatus?.(false, new Error('live stream ended'));
      } catch (error) {
        this.options.onStatus?.(false, error);
      }
      if (!this.running) break;
      const base = this.options.retryMs ?? 500;
      const wait = Math.min(this.options.maxRetryMs ?? 10_000, base * 2 ** Math.min(this.attempt++, 6));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait * (0.75 + Math.random() / 2));
        this.wakeRetry = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeRetry = null;
    }
  }

  private async connectOnce(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const signal = this.endpoint.signal ? AbortSignal.any([this.endpoint.signal, abort.signal]) : abort.signal;
    const connectMs = this.endpoint.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const deadline = setTimeout(() => abort.abort(new Error(`live stream: no answer within ${connectMs} ms`)), connectMs);
    const query = new URLSearchParams({ collections: this.options.collections.join(',') });
    let res: Response;
    try {
      res = await (this.endpoint.fetch ?? fetch)(`${this.endpoint.baseUrl}/sync/stream?${query}`, {
        headers: { authorization: `Bearer ${this.endpoint.token}`, accept: 'text/event-stream' },
        signal,
      });
    } catch (error) {
      throw abort.signal.reason instanceof Error ? abort.signal.reason : error;
    } finally {
      clearTimeout(deadline);
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`live stream refused: HTTP ${res.status}`);
    }
    await this.read(res.body, abort);
  }

  /** Reads events until the stream ends or falls silent for longer than the idle timeout. */
  private async read(body: ReadableStream<Uint8Array>, abort: AbortController): Promise<void> {
    const parser = createParser({ onEvent: (event) => this.dispatch(JSON.parse(event.data) as ServerEvent) });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => abort.abort(new Error(`live stream silent for ${this.idleTimeoutMs} ms`)), this.idleTimeoutMs);
    };
    alive();
    try {
      for (;;) {
        const { done, value } = await untilAborted(reader.read(), abort.signal);
        if (done) break;
        alive();
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      throw abort.signal.reason instanceof Error ? abort.signal.reason : error;
    } finally {
      clearTimeout(watchdog);
      // A read may still be pending (see untilAborted): cancel it, without waiting on it either.
      void reader.cancel().catch(() => undefined);
    }
  }

  private dispatch(event: ServerEvent): void {
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

