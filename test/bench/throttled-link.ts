import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * A technician's mobile link on loopback: an HTTP proxy in front of the server whose two
 * directions each carry `mbps` megabits per second and add half of `rttMs` of latency. Every
 * connection shares the link, as on a phone. With `compress: false` the proxy removes the
 * device's Accept-Encoding, which is what a server without compression sends: the "before".
 */
export interface ThrottledLink {
  url: string;
  /** Bytes that crossed the link towards the device. */
  bytesDown(): number;
  close(): Promise<void>;
}

export async function startThrottledLink(targetUrl: string, options: { mbps: number; rttMs: number; compress: boolean }): Promise<ThrottledLink> {
  const target = new URL(targetUrl);
  const up = new Direction(options.mbps, options.rttMs / 2);
  const down = new Direction(options.mbps, options.rttMs / 2);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, host: target.host };
    if (!options.compress) delete headers['accept-encoding'];
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(down.throttle()).pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(up.throttle()).pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesDown: () => down.bytes,
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One direction of the link: chunks leave one after another at the link's rate, then travel. */
class Direction {
  bytes = 0;
  private free = 0; // when the link finishes sending what is queued (performance.now() ms)

  constructor(
    private readonly mbps: number,
    private readonly latencyMs: number,
  ) {}

  throttle(): Transform {
    const link = this;
    // Chunks in the order they arrived. Each chunk's timer delivers it and every chunk before it
    // still waiting: timers of different delays may fire out of order (Node keeps one list per
    // delay, started from the loop's cached clock), and a stream delivered out of order is
    // corrupt (a brotli-encoded script fails to decode in the browser).
    const waiting: Buffer[] = [];
    let arrived = 0;
    let delivered = 0;
    const deliverThrough = (stream: Transform, sequence: number) => {
      while (delivered < sequence) {
        stream.push(waiting.shift());
        delivered++;
      }
    };
    return new Transform({
      transform(chunk: Buffer, _encoding, done: TransformCallback) {
        link.bytes += chunk.length;
        const now = performance.now();
        link.free = Math.max(now, link.free) + (chunk.length * 8) / (link.mbps * 1000);
        waiting.push(chunk);
        const sequence = ++arrived;
        // The chunk arrives once sent and carried; the sender may go on writing at once (its
        // socket buffer), and later chunks queue behind this one on the link.
        setTimeout(() => deliverThrough(this, sequence), link.free + link.latencyMs - now);
        done();
      },
      flush(done) {
        setTimeout(() => {
          deliverThrough(this, arrived);
          done();
        }, Math.max(0, link.free + link.latencyMs - performance.now()) + 1);
      },
    });
  }
}
