import net from 'node:net';

/**
 * A request written by hand on a raw socket, for what fetch will not send: headers promising a
 * body that never comes, a body cut off midway. Resolves when the server closes the connection
 * (or after `waitMs`), with what it answered and when.
 */
export interface RawAnswer {
  /** The status code of the first answer, 0 when none came. */
  status: number;
  headers: string;
  body: string;
  /** Milliseconds from the request until the answer's first byte, and until the connection closed (null: still open at `waitMs`). */
  answeredMs: number | null;
  closedMs: number | null;
}

export function rawRequest(url: string, head: string, { body = '', waitMs = 5000, localAddress }: { body?: string | Buffer; waitMs?: number; localAddress?: string } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    let received = '';
    let answeredMs: number | null = null;
    const done = (closedMs: number | null) => {
      clearTimeout(timer);
      socket.destroy();
      const [headers = '', ...rest] = received.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n'), answeredMs, closedMs });
    };
    const timer = setTimeout(() => done(null), waitMs);
    socket.on('error', (error) => (received ? done(performance.now() - started) : reject(error)));
    socket.on('data', (chunk) => {
      answeredMs ??= performance.now() - started;
      received += chunk.toString('latin1');
    });
    socket.on('end', () => done(performance.now() - started));
    socket.on('connect', () => socket.write(`${head.trim().split('\n').map((l) => l.trim()).join('\r\n')}\r\n\r\n`));
    if (body.length) socket.once('connect', () => socket.write(body));
  });
}
