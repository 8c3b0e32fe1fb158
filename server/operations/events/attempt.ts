import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Attempt } from '../../storage/webhook-deliveries.js';
import { checkedAddress, literalAddress, systemResolve, type Resolve, type ResolvedAddress } from './addresses.js';
import { connectionPool } from './connections.js';
import { signatureHeader } from './signing.js';

/**
 * One delivery attempt: the event POSTed to the endpoint as Standard Webhooks sends it, to the
 * address checked for this attempt (addresses.ts), with a deadline on the connection and one on
 * the whole attempt, no redirect followed, and at most 64 KB of the answer read. Only a 2xx
 * within the deadline is a success. The connection is kept for the next attempt to the same
 * checked address (connections.ts) when the answer was read to its end; any other ending closes it.
 */
export interface DeliveryNetwork {
  /** Resolves a host name (once per attempt). */
  resolve: Resolve;
  /** The connect step: opens the request (tests replace it to prove a refusal connects nowhere). */
  request: (url: URL, options: http.RequestOptions) => http.ClientRequest;
}

export const systemNetwork: DeliveryNetwork = {
  resolve: systemResolve,
  request: (url, options) => (url.protocol === 'https:' ? https : http).request(url, options),
};

export interface AttemptSettings {
  allowHttp: boolean;
  allowPrivateAddresses: boolean;
  attemptTimeoutMs: number;
  connectTimeoutMs: number;
  network?: DeliveryNetwork;
}

export interface HttpAnswer {
  /** The status answered; null when nothing was. */
  statusCode: number | null;
  /** Why the attempt failed; null for a success. */
  error: string | null;
  /** The answer's Retry-After, in seconds, when it gave one. */
  retryAfterSeconds: number | null;
  durationMs: number;
  /** The attempt was made at this time (the signature's webhook-timestamp). */
  attemptedAt: Date;
}

/** The most of an answer's body read: a receiver sending more is cut off (its status still counts). */
export const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'pool-service-webhooks/1';

/** What the endpoint receives: the event, thin (the receiver reads the record through GraphQL). */
export function eventBody(attempt: Pick<Attempt, 'eventId' | 'eventType' | 'occurredAt' | 'orgId' | 'data'>): string {
  return JSON.stringify({ id: attempt.eventId, type: attempt.eventType, occurredAt: attempt.occurredAt, organizationId: attempt.orgId, data: attempt.data });
}

/** The headers of one attempt: webhook-id is the event's id, the same on every attempt of it to any endpoint. */
export function webhookHeaders(attempt: Pick<Attempt, 'eventId' | 'secrets'>, body: string, at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': attempt.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(attempt.secrets, attempt.eventId, timestamp, body),
  };
}

/** Node's connect step asks this for the address: it gets exactly the one checked. */
function fixedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    if (all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

/** Seconds in a Retry-After header (seconds, or an HTTP date), or null. */
export function retryAfterOf(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.round((at - now) / 1000)) : null;
}

/** A short, printable excerpt of an answer's body for the delivery log. */
const excerpt = (body: Buffer) => body.toString('utf8', 0, Math.min(body.length, 200)).replace(/[^\x20-\x7e]+/g, ' ').trim();

function failureOf(status: number, body: Buffer): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  const text = excerpt(body);
  return `HTTP ${status}${text ? `: ${text}` : ''}`;
}

/** Makes the attempt. Never throws: every failure is an answer with its error. */
export function postEvent(attempt: Attempt, settings: AttemptSettings): Promise<HttpAnswer> {
  const network = settings.network ?? systemNetwork;
  const attemptedAt = new Date();
  const started = performance.now();
  return new Promise((resolve) => {
    let request: http.ClientRequest | null = null;
    let settled = false;
    /** `keep`: the answer was read to its end, so its connection may serve the next attempt. */
    const settle = (statusCode: number | null, error: string | null, retryAfterSeconds: number | null = null, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (!keep) request?.destroy();
      resolve({ statusCode, error, retryAfterSeconds, durationMs: performance.now() - started, attemptedAt });
    };
    // Our own timer, cleared when the attempt ends (an AbortSignal.timeout held only weakly can be collected and never fire).
    const deadline = setTimeout(() => settle(null, `no answer within ${settings.attemptTimeoutMs} ms`), settings.attemptTimeoutMs);
    /** `fresh`: on a new connection, not a kept one (the kept one was closed by the receiver as it was reused). */
    const send = async (fresh = false) => {
      const url = new URL(attempt.url);
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && settings.allowHttp)) {
        return settle(null, `refused: ${url.protocol}// URLs are not delivered to (https only)`);
      }
      const target = await checkedAddress(url.hostname, network.resolve, settings.allowPrivateAddresses);
      if (settled) return;
      const body = eventBody(attempt);
      const headers = { ...webhookHeaders(attempt, body, attemptedAt), 'content-length': String(Buffer.byteLength(body)) };
      // TLS checks the certificate against the name (SNI too), while the socket goes to the address checked.
      const servername = url.protocol === 'https:' && !literalAddress(url.hostname) ? url.hostname : undefined;
      const agent = fresh ? false : connectionPool(url, target, servername);
      const sent = network.request(url, { method: 'POST', headers, agent, lookup: fixedLookup(target), ...(servername ? { servername } : {}) });
      request = sent;
      let reused = false;
      let answered = false;
      sent.once('socket', (socket) => {
        // A kept connection is connected already: only a new one has the connect deadline.
        reused = !fresh && sent.reusedSocket === true;
        if (reused) return;
        const connecting = setTimeout(() => settle(null, `no connection within ${settings.connectTimeoutMs} ms`), settings.connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connecting));
        socket.once('close', () => clearTimeout(connecting));
      });
      sent.once('error', (error) => {
        // A receiver may close a kept connection just as it is reused (its idle timeout): the
        // attempt is made again at once on a new connection, as HTTP clients do, not failed.
        if (reused && !answered && !settled) return void send(true).catch((e: unknown) => settle(null, e instanceof Error ? e.message : String(e)));
        settle(null, error.message || String(error));
      });
      sent.once('response', (answer) => {
        answered = true;
        readAnswer(answer, settle);
      });
      sent.end(body);
    };
    send().catch((error: unknown) => settle(null, error instanceof Error ? error.message : String(error)));
  });
}

/** Reads at most MAX_ANSWER_BYTES of the answer, then settles the attempt by its status. */
function readAnswer(answer: http.IncomingMessage, settle: (status: number | null, error: string | null, retryAfter?: number | null, keep?: boolean) => void): void {
  const status = answer.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  const done = (keep: boolean) => {
    const ok = status >= 200 && status < 300;
    settle(status, ok ? null : failureOf(status, Buffer.concat(chunks)), ok ? null : retryAfterOf(answer.headers['retry-after']), keep);
  };
  answer.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
    else done(false);
  });
  answer.once('end', () => done(true));
  answer.once('error', () => done(false));
  answer.once('close', () => done(false));
}
