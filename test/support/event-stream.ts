import { createParser } from 'eventsource-parser';

/** A raw subscription to /sync/stream for tests: every event kept, the end observable. */
export interface EventStream {
  events: any[];
  /** The comment lines received (the server's heartbeats: "heartbeat"). */
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** The first event (already received or to come) matching the predicate. */
  next(predicate: (event: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): void;
}

export async function openEventStream(server: { url: string }, token: string, collections?: string[]): Promise<EventStream> {
  const abort = new AbortController();
  const query = collections ? `?collections=${collections.join(',')}` : '';
  const res = await fetch(`${server.url}/sync/stream${query}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  if (!res.ok || !res.body) throw new Error(`stream refused: ${res.status}`);
  const events: any[] = [];
  const comments: string[] = [];
  const listeners = new Set<() => void>();
  const parser = createParser({
    onEvent: (e) => {
      events.push(JSON.parse(e.data));
      for (const l of listeners) l();
    },
    onComment: (comment) => comments.push(comment.trim()),
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    comments,
    ended,
    next(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no such event within ${timeoutMs} ms; got ${JSON.stringify(events).slice(0, 500)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
