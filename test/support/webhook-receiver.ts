import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver as an integrator would run one, on the loopback only: it records every
 * request it gets (headers and raw body) and answers as the test says (by default 204).
 */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; occurredAt: string; organizationId: string; data: Record<string, unknown> };
  at: number;
  path: string;
}

/** How to answer one request: a status (and headers), or 'hold' to never answer it. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hold';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer; replace it to fail, redirect or hold. */
  answer: (request: Received, index: number) => Answer;
  /** Requests held ('hold') and not yet answered. */
  held: http.ServerResponse[];
  /** Resolves once `count` requests matched (by default any). */
  waitFor(count: number, match?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 204 })): Promise<Receiver> {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    answer,
    held,
    waitFor: (count, match = () => true, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const matching = received.filter(match);
          if (matching.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(matching);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${count} deliveries; got ${received.filter(match).length} of ${received.length}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        headers: req.headers,
        body,
        event: JSON.parse(body) as Received['event'],
        at: Date.now(),
        path: req.url ?? '/',
      };
      const index = received.push(request) - 1;
      const reply = receiver.answer(request, index);
      if (reply === 'hold') held.push(res);
      else res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

/** Whether the delivery verifies with the secret, as a receiver checks it (the Standard Webhooks library). */
export function verifies(secret: string, r: Pick<Received, 'body' | 'headers'>): boolean {
  try {
    new Webhook(secret).verify(r.body, { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) });
    return true;
  } catch {
    return false;
  }
}
