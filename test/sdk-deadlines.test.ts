import net from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPoolClient } from '../client-sdk/index.js';
import { LiveStream } from '../client-sdk/replication/stream.js';
import { sampleFiles } from './fixtures/files.js';

/**
 * Deadlines that cannot vanish. Node 20's `AbortSignal.any()` holds its sources weakly, so an
 * `AbortSignal.timeout()` that only it references is collected at the next garbage collection and
 * never fires: a device then waits on a dead connection for good (73 s and counting on a push
 * with a 30 s deadline, seen in the field trial). Here garbage is collected every 50 ms while
 * every kind of request the SDK makes hangs on a socket that accepts and never answers (a dead
 * cell tower), and each must fail within its deadline plus a second.
 */
const gc = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** Accepts connections and reads everything; answers nothing, closes nothing. */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined).resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Answers a stream's headers and its first event, then falls silent, the connection left open. */
async function silentAfterHello(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined).once('data', () => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      const event = 'data: {"type":"RESYNC","heartbeatMs":400}\n\n';
      s.write(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** A fetch that records how long each request of each kind took to fail. */
function timedFetch(log: { kind: string; ms: number }[]): typeof fetch {
  return (input, init) => {
    const url = String(input);
    const kind = url.includes('/sync/stream') ? 'stream' : url.includes('/pull') ? 'pull' : url.includes('/push') ? 'push' : url.includes('/photos') ? 'upload' : 'other';
    const started = Date.now();
    return fetch(input, init).finally(() => log.push({ kind, ms: Date.now() - started }));
  };
}

describe('deadlines hold while garbage is collected', () => {
  let collecting: ReturnType<typeof setInterval>;
  beforeAll(() => {
    collecting = setInterval(gc, 50);
  });
  afterAll(() => clearInterval(collecting));

  it('pulls, pushes, stream connections and photo uploads to a dead server each fail within their deadline plus a second', async () => {
    const hole = await blackHole();
    const log: { kind: string; ms: number }[] = [];
    const deadline = 1500;
    const client = await createPoolClient({
      baseUrl: hole.url,
      token: 't',
      collections: ['services'],
      storage: getRxStorageMemory() as never,
      name: `deadlines-${Date.now()}`,
      fetch: timedFetch(log),
      requestTimeoutMs: deadline,
      uploadStallMs: deadline,
      retryMs: 50,
    });
    try {
      const visit = await client.recordVisit({ notes: 'made offline' });
      await client.addVisitPhoto(visit.id, new Blob([new Uint8Array(sampleFiles.jpeg(600))], { type: 'image/jpeg' }));
      client.sync.start();
      const kinds = ['pull', 'push', 'stream', 'upload'];
      const until = Date.now() + 20_000;
      while (Date.now() < until && !kinds.every((k) => log.filter((e) => e.kind === k).length >= 2)) await new Promise((r) => setTimeout(r, 100));
      for (const kind of kinds) expect(log.filter((e) => e.kind === kind).length, `${kind} requests that ended`).toBeGreaterThanOrEqual(2);
      // An upload's allowance adds the time its bytes take at 32 KB/s (about 20 ms here), and doubles after each that ran out.
      const allowance = (e: { kind: string }, i: number) => (e.kind === 'upload' ? (deadline + 20) * 2 ** Math.min(i, 5) : deadline);
      for (const kind of kinds) {
        const ended = log.filter((e) => e.kind === kind);
        ended.forEach((e, i) => expect(e.ms, `${kind} #${i + 1}`).toBeLessThanOrEqual(allowance(e, i) + 1000));
      }
    } finally {
      await client.close();
      await hole.close();
    }
  }, 40_000);

  it("a stream whose heartbeats stop while its socket stays open is given up after its idle time", async () => {
    const server = await silentAfterHello();
    const failures: { at: number; message: string }[] = [];
    let connectedAt = 0;
    const stream = new LiveStream(
      { baseUrl: server.url, token: 't' },
      {
        collections: ['services'],
        retryMs: 50,
        onStatus: (connected, failure) => {
          if (connected) connectedAt = Date.now();
          else failures.push({ at: Date.now() - connectedAt, message: failure?.message ?? '' });
        },
      },
    );
    stream.start();
    try {
      await expect.poll(() => failures.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      // The RESYNC announced heartbeats every 400 ms: silent for 1 s is dead.
      for (const f of failures) {
        expect(f.message).toMatch(/silent for 1000 ms/);
        expect(f.at).toBeLessThanOrEqual(1000 + 1000);
      }
    } finally {
      await stream.close();
      await server.close();
    }
  }, 20_000);
});
