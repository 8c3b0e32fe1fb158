import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a test server that can hold sync pushes at the door: while closed, a
 * `POST /sync/:collection/push` is read whole and kept, unanswered, its connection open (a push
 * the server is slow to take); `release()` sends it on, even if the device that sent it has gone
 * since (the request had reached the server's side before its tab closed). Everything else,
 * the live stream included, passes through as it is.
 */
export interface Push {
  collection: string;
  rows: { newDocumentState: { id: string } & Record<string, unknown>; changeId?: string; earlier?: { changeId: string }[] }[];
  /** It was held at the door. */
  held: boolean;
  /** The device that sent it closed its connection before it was answered. */
  abandoned: boolean;
}

export interface PushGate {
  url: string;
  /** Every push that came, oldest first, held or not. */
  readonly pushes: readonly Push[];
  /** Holds every push that arrives from now on. */
  hold(): void;
  /** Sends the oldest push still held to the server; resolves once the server has answered it. */
  releaseOne(): Promise<void>;
  /** Sends every push held, and lets the next ones through. */
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function startPushGate(targetUrl: string): Promise<PushGate> {
  const target = new URL(targetUrl);
  const pushes: Push[] = [];
  const waiting: (() => Promise<void>)[] = [];
  let holding = false;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const isPush = req.method === 'POST' && /^\/sync\/[^/]+\/push/.test(req.url ?? '');
      if (!isPush) return void forward(req, body, res, true);
      const push: Push = { collection: req.url!.split('/')[2]!, rows: JSON.parse(body.toString('utf8')), held: holding, abandoned: false };
      res.on('close', () => (push.abandoned = !res.writableFinished));
      pushes.push(push);
      if (holding) waiting.push(() => forward(req, body, res, false));
      else void forward(req, body, res, false);
    });
  });

  /**
   * Sends the request on; the answer goes back to the device if it is still there. A push reaches
   * the server whatever the device does; another request (the live stream) ends when its device goes.
   */
  function forward(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, endsWithDevice: boolean): Promise<void> {
    return new Promise((resolve) => {
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'content-length': String(body.length) } },
        (answer) => {
          if (!res.destroyed) res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.on('data', (chunk: Buffer) => !res.destroyed && res.write(chunk));
          answer.on('end', () => {
            if (!res.destroyed) res.end();
            resolve();
          });
          answer.on('error', () => resolve());
        },
      );
      upstream.on('error', () => {
        if (!res.destroyed) res.destroy();
        resolve();
      });
      if (endsWithDevice) res.on('close', () => !res.writableFinished && upstream.destroy());
      upstream.end(body);
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pushes,
    hold() {
      holding = true;
    },
    async releaseOne() {
      const next = waiting.shift();
      if (!next) throw new Error('no push is held');
      await next();
    },
    async open() {
      holding = false;
      while (waiting.length) await waiting.shift()!();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
