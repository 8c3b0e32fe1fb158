import { createParser } from 'eventsource-parser';
import { Subject, type Observable } from 'rxjs';
import type { Checkpoint, SyncEndpoint } from './http.js';

/**
 * One Server-Sent-Events connection per client carrying every collection's changes (parsed with
 * eventsource-parser, so it runs wherever fetch does: Node and browsers). It reconnects by itself
 * with backoff, and each (re)connection starts with RESYNC, which makes every replication pull
 * from its checkpoint, so nothing sent while disconnected is missed.
 */
export type StreamItem<T> = 'RESYNC' | { documents: T[]; checkpoint: Checkpoint };

type ServerEvent = { type: 'RESYNC' } | { type: 'changes'; collection: string; documents: unknown[]; checkpoint: Checkpoint };

export interface LiveStreamOptions {
  collections: readonly string[];
  /** First and largest wait between reconnection attempts. */
  retryMs?: number;
  maxRetryMs?: number;
  onStatus?: (connected: boolean, error?: unknown) => void;
}

export class LiveStream {
  private readonly subjects = new Map<string, Subject<StreamItem<unknown>>>();
  private abort: AbortController | null = null;
  private running = false;
  private attempt = 0;

  constructor(
    private readonly endpoint: SyncEndpoint,
    private readonly options: LiveStreamOptions,
  ) {
    for (const name of options.collections) this.subjects.set(name, new Subject());
  }

  events<T>(collection: string): Observable<StreamItem<T>> {
    const subject = this.subjects.get(collection);
    if (!subject) throw new Error(`The live stream does not carry ${collection}`);
    return subject.asObservable() as Observable<StreamItem<T>>;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.running = false;
    this.abort?.abort();
  }

  /** Closes the stream for good and completes every observable. */
  close(): void {
    this.stop();
    for (const subject of this.subjects.values()) subject.complete();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        await this.connectOnce();
        this.attempt = 0;
      } catch (error) {
        this.options.onStatus?.(false, error);
      }
      if (!this.running) break;
      const base = this.options.retryMs ?? 500;
      const wait = Math.min(this.options.maxRetryMs ?? 10_000, base * 2 ** Math.min(this.attempt++, 6));
      await new Promise((resolve) => setTimeout(resolve, wait * (0.75 + Math.random() / 2)));
    }
  }

  private async connectOnce(): Promise<void> {
    this.abort = new AbortController();
    const query = new URLSearchParams({ collections: this.options.collections.join(',') });
    const res = await (this.endpoint.fetch ?? fetch)(`${this.endpoint.baseUrl}/sync/stream?${query}`, {
      headers: { authorization: `Bearer ${this.endpoint.token}`, accept: 'text/event-stream' },
      signal: this.abort.signal,
    });
    if (!res.ok || !res.body) throw new Error(`live stream refused: HTTP ${res.status}`);
    const parser = createParser({ onEvent: (event) => this.dispatch(JSON.parse(event.data) as ServerEvent) });
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      reader.releaseLock();
    }
    this.options.onStatus?.(false);
  }

  private dispatch(event: ServerEvent): void {
    if (event.type === 'RESYNC') {
      this.attempt = 0;
      this.options.onStatus?.(true);
      for (const subject of this.subjects.values()) subject.next('RESYNC');
      return;
    }
    this.subjects.get(event.collection)?.next({ documents: event.documents, checkpoint: event.checkpoint });
  }
}
