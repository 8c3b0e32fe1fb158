import { describe, expect, it } from 'vitest';
import { pullBatch } from '../client-sdk/replication/http.js';
import { LiveStream } from '../client-sdk/replication/stream.js';

/**
 * Node 20's fetch can leave a body read pending forever after its request was aborted under load
 * (nodejs/undici#4232 and nodejs/undici#4089). The SDK must not wait on it: a deadline fails the call, and
 * closing ends the live stream at once. Here the fetch is one whose body never arrives and
 * ignores the abort, which is that bug made deterministic.
 */
function fetchWithStuckBody(): typeof fetch {
  return (async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        // The headers came; the body never does, and nothing here listens to the abort.
        controller.enqueue(new TextEncoder().encode('retry: 1000\n\n'));
      },
      pull: () => new Promise<void>(() => undefined),
      cancel: () => new Promise<void>(() => undefined),
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

describe('the SDK does not wait on a body that never ends', () => {
  it('a pull whose answer stalls mid-body fails at its deadline', async () => {
    const started = Date.now();
    const endpoint = { baseUrl: 'http://127.0.0.1:9', token: 't', fetch: fetchWithStuckBody(), requestTimeoutMs: 200 };
    await expect(pullBatch(endpoint, 'customers', undefined, 10)).rejects.toThrow(/no answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a client closed while its pull reads a stalled body is not held up by it', async () => {
    const closing = new AbortController();
    const endpoint = { baseUrl: 'http://127.0.0.1:9', token: 't', fetch: fetchWithStuckBody(), requestTimeoutMs: 60_000, signal: closing.signal };
    const pulling = pullBatch(endpoint, 'customers', undefined, 10);
    setTimeout(() => closing.abort(new Error('client closed')), 50);
    await expect(pulling).rejects.toThrow('client closed');
  });

  it('stopping a live stream whose body stalls returns at once', async () => {
    const stream = new LiveStream({ baseUrl: 'http://127.0.0.1:9', token: 't', fetch: fetchWithStuckBody() }, { collections: ['customers'], idleTimeoutMs: 60_000 });
    stream.start();
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await stream.stop();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
