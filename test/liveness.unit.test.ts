import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { failureOfAnswer, failureOfThrown, FAILURE_KINDS, nextMove, retryAfterMs, SyncFailure } from '../client-sdk/replication/failure.js';
import { ConnectionWatch, PROBE_INTERVAL_MS } from '../client-sdk/replication/liveness.js';

/**
 * The rules that give up requests on dead connections (client-sdk/replication/liveness.ts) and the
 * one table from a failed request to what sync does next (failure.ts), with the clock faked.
 */
describe('the connection watch', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const watched = (watch: ConnectionWatch, expectedMs = 10_000) => {
    const abandoned = { yes: false };
    const call = watch.track(() => (abandoned.yes = true), expectedMs);
    return { call, abandoned };
  };

  it('after trouble, an answer to a newer request gives up the requests silent since before it', () => {
    const watch = new ConnectionWatch();
    const hung = watched(watch);
    const lively = watched(watch);
    watch.alive(lively.call, 5_000); // showed life before the trouble, and is due again
    watch.trouble(); // say, the stream's watchdog
    watch.alive(lively.call, 5_000); // showed life after it: its connection works
    const fresh = watched(watch);
    watch.answered(fresh.call);
    expect(hung.abandoned.yes).toBe(true);
    expect(lively.abandoned.yes).toBe(false);
  });

  it('without trouble, an answer to a newer request leaves an older one alone until it is overdue', () => {
    const watch = new ConnectionWatch();
    const slow = watched(watch, 10_000);
    vi.advanceTimersByTime(3_000);
    watch.answered(watched(watch).call);
    expect(slow.abandoned.yes).toBe(false); // a slow server, not a dead connection (yet)
    vi.advanceTimersByTime(8_000);
    watch.alive(watched(watch).call);
    expect(slow.abandoned.yes).toBe(true);
  });

  it('an answered request reading a slow body is never judged by the watch', () => {
    const watch = new ConnectionWatch();
    const reading = watched(watch, 1_000);
    watch.answered(reading.call);
    vi.advanceTimersByTime(60_000);
    watch.answered(watched(watch).call);
    expect(reading.abandoned.yes).toBe(false);
  });

  it('a stream whose next heartbeat is overdue is given up once anything else shows life, and finding it dead ends the older silent requests too', () => {
    const watch = new ConnectionWatch();
    const push = watched(watch, 10_000);
    const stream = watched(watch, 3_000);
    watch.answered(stream.call, 5_000);
    vi.advanceTimersByTime(6_000);
    const probe = watched(watch, 3_000);
    watch.answered(probe.call);
    expect(stream.abandoned.yes).toBe(true);
    expect(push.abandoned.yes).toBe(false); // not overdue yet...
    const reconnected = watched(watch, 3_000);
    watch.answered(reconnected.call, 5_000);
    expect(push.abandoned.yes).toBe(true); // ...but in flight across the death the watch found
  });

  it('probes the server when a request is overdue and nothing else shows life, no more often than every two seconds', async () => {
    let probes = 0;
    const watch: ConnectionWatch = new ConnectionWatch(async () => {
      probes++;
      const probe = watch.track(() => undefined, 3_000);
      watch.answered(probe);
      watch.untrack(probe);
    });
    const hung = watched(watch, 3_000);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(probes).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(probes).toBe(1);
    expect(hung.abandoned.yes).toBe(true);
    const next = watched(watch, 100);
    await vi.advanceTimersByTimeAsync(500);
    expect(probes).toBe(1); // the last probe was less than PROBE_INTERVAL_MS ago
    await vi.advanceTimersByTimeAsync(PROBE_INTERVAL_MS);
    expect(probes).toBe(2);
    expect(next.abandoned.yes).toBe(true);
    watch.close();
  });

  it('the platform saying the network is back gives up everything in flight', () => {
    const watch = new ConnectionWatch();
    const a = watched(watch);
    const b = watched(watch);
    watch.answered(b.call);
    watch.networkBack();
    expect([a.abandoned.yes, b.abandoned.yes]).toEqual([true, true]);
  });
});

describe('failures are classified once, and each kind has one next move', () => {
  const answer = (status: number, body: unknown = {}, headers: Record<string, string> = {}) =>
    failureOfAnswer('push services', status, new Headers(headers), JSON.stringify(body));

  it('maps statuses to kinds, keeping the server’s words and code', () => {
    expect(answer(401, { error: { code: 'UNAUTHENTICATED', message: 'revoked' } })).toMatchObject({ kind: 'signed-out', message: 'push services: revoked', details: { status: 401, code: 'UNAUTHENTICATED' } });
    expect(answer(429, {}, { 'retry-after': '7' })).toMatchObject({ kind: 'rate-limited', details: { retryAfterMs: 7000 } });
    expect(answer(413, { error: { code: 'PAYLOAD_TOO_LARGE', message: 'too big' } })).toMatchObject({ kind: 'refused', details: { status: 413 } });
    expect(answer(404).kind).toBe('refused');
    expect(answer(500).kind).toBe('server');
    expect(answer(503, { error: { code: 'TIMEOUT', message: 'late' } }).kind).toBe('server');
    expect(answer(302).kind).toBe('protocol');
    // The server no longer serves this app's protocol: stop, with the versions it said.
    expect(answer(426, { error: { code: 'VERSION_NOT_SUPPORTED', message: 'update', clientVersion: 0, minVersion: 1, currentVersion: 1 } })).toMatchObject({
      kind: 'update-required',
      details: { status: 426, code: 'VERSION_NOT_SUPPORTED', versions: { clientVersion: 0, minVersion: 1, currentVersion: 1 } },
    });
    expect(answer(426, '<html>Upgrade Required</html>')).toMatchObject({ kind: 'update-required', details: { status: 426 } });
    expect(failureOfAnswer('pull', 502, new Headers(), '<html>Bad gateway</html>').message).toBe('pull: HTTP 502');
    expect(failureOfThrown('pull', new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') }))).toMatchObject({ kind: 'network', message: 'pull: fetch failed (ECONNREFUSED)' });
  });

  it('reads Retry-After as seconds or a date, within a second and an hour', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('0', now)).toBe(1000);
    expect(retryAfterMs('86400', now)).toBe(3_600_000);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:20 GMT', now)).toBe(20_000);
    expect(retryAfterMs('soon', now)).toBe(5000);
    expect(retryAfterMs(null, now)).toBe(5000);
  });

  it('decides what follows every kind', () => {
    const moves = Object.fromEntries(FAILURE_KINDS.map((kind) => [kind, nextMove(new SyncFailure(kind, kind, { retryAfterMs: 2000 }))]));
    expect(moves).toEqual({
      network: { retry: 'backoff' },
      server: { retry: 'backoff' },
      'rate-limited': { wait: 2000 },
      'signed-out': { stop: 'signed-out' },
      'update-required': { stop: 'update-required' },
      refused: { retry: 'backoff' },
      protocol: { retry: 'backoff' },
    });
    expect(nextMove(new SyncFailure('network', 'dead', { presumedDead: true }))).toEqual({ retry: 'now' });
  });
});
