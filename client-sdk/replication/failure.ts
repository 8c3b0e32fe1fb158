import type { ProtocolVersionRefusal } from '../../shared/index.js';

/**
 * Why a request to the server did not succeed, as a closed set of kinds. Every failure of a pull,
 * push, stream or upload becomes one of these in one place (`failureOfAnswer`, `failureOfThrown`),
 * and what sync does next is decided by the kind alone (`nextMove`), so a refusal is never taken
 * for an outage nor an outage for a refusal.
 *
 * - network: no answer at all (no connection, a deadline passed, a connection presumed dead);
 * - server: the server failed (5xx, its own timeout); it may work a moment later;
 * - rate-limited: 429; the server says when to come back;
 * - signed-out: 401; the token is unknown or revoked, and no retry will change that;
 * - update-required: 426; the server no longer serves the sync protocol version this app speaks
 *   (shared/sync/protocol-version.ts), and only an updated app will sync; nothing was written, and
 *   the pending changes stay on the device for the updated app to push;
 * - refused: another 4xx; the server will not take this request as it is (too large, invalid);
 * - protocol: an answer that is not the protocol's (a proxy's error page, a malformed event).
 */
export const FAILURE_KINDS = ['network', 'server', 'rate-limited', 'signed-out', 'update-required', 'refused', 'protocol'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export class SyncFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details: {
      status?: number;
      /** The server's error code, e.g. PAYLOAD_TOO_LARGE. */
      code?: string;
      /** signed-out: why the server refused the token (shared/errors.ts, REFUSAL_REASONS: revoked, expired, unknown). */
      reason?: string;
      /** rate-limited: how long the server asked to wait. */
      retryAfterMs?: number;
      /** network: the request was abandoned because a newer one got through (its connection is dead). */
      presumedDead?: boolean;
      /** update-required: the versions, as the server said them. */
      versions?: ProtocolVersionRefusal;
    } = {},
  ) {
    super(message);
    this.name = 'SyncFailure';
  }
}

/** How long to wait after a 429 whose Retry-After is missing or unreadable. */
const DEFAULT_RETRY_AFTER_MS = 5_000;

/** A non-2xx answer: its status decides the kind; its body (`{error: {code, message}}`) the words. */
export function failureOfAnswer(what: string, status: number, headers: Headers, text: string): SyncFailure {
  const { code, message, reason } = errorBodyOf(text);
  const said = `${what}: ${message ?? `HTTP ${status}`}`;
  const details = { status, ...(code ? { code } : {}) };
  if (status === 401) return new SyncFailure('signed-out', said, { ...details, ...(reason ? { reason } : {}) });
  if (status === 426) return new SyncFailure('update-required', said, { ...details, ...versionsOf(text) });
  if (status === 429) return new SyncFailure('rate-limited', said, { ...details, retryAfterMs: retryAfterMs(headers.get('retry-after')) });
  if (status >= 500) return new SyncFailure('server', said, details);
  if (status >= 400) return new SyncFailure('refused', said, details);
  return new SyncFailure('protocol', `${what}: unexpected HTTP ${status}`, details);
}

/** Whatever a request threw: already a SyncFailure (a deadline, a presumed-dead abort), or a network error. */
export function failureOfThrown(what: string, error: unknown): SyncFailure {
  if (error instanceof SyncFailure) return error;
  const cause = error instanceof Error ? (error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message) : String(error);
  return new SyncFailure('network', `${what}: ${cause}`);
}

/** An answer whose body is not what the protocol promises. */
export function protocolFailure(what: string, problem: string): SyncFailure {
  return new SyncFailure('protocol', `${what}: ${problem}`);
}

/** A 426's versions, when its body has them (a proxy's 426 may not). */
function versionsOf(text: string): { versions?: ProtocolVersionRefusal } {
  try {
    const { error } = JSON.parse(text) as { error?: Partial<Record<keyof ProtocolVersionRefusal, unknown>> };
    const { clientVersion, minVersion, currentVersion } = error ?? {};
    const numbers = [clientVersion, minVersion, currentVersion].every((n) => typeof n === 'number');
    return numbers ? { versions: { clientVersion, minVersion, currentVersion } as ProtocolVersionRefusal } : {};
  } catch {
    return {};
  }
}

function errorBodyOf(text: string): { code?: string; message?: string; reason?: string } {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; reason?: unknown } };
    const code = typeof body.error?.code === 'string' ? body.error.code : undefined;
    const message = typeof body.error?.message === 'string' ? body.error.message : undefined;
    const reason = typeof body.error?.reason === 'string' ? body.error.reason : undefined;
    return { code, message, reason };
  } catch {
    return {};
  }
}

/** Retry-After in seconds or as an HTTP date; never less than a second, never more than an hour. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return DEFAULT_RETRY_AFTER_MS;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(3_600_000, Math.max(1000, ms)) : DEFAULT_RETRY_AFTER_MS;
}

/**
 * What sync does after a failure of a pull, push or stream: every kind has exactly one answer.
 * - retry: at once (`now`) when the network is known to be back, else after the backoff;
 * - wait: the time the server asked for;
 * - stop: nothing will work until the app signs in again, or is updated.
 */
export type NextMove = { retry: 'now' | 'backoff' } | { wait: number } | { stop: 'signed-out' | 'update-required' };

export function nextMove(failure: SyncFailure): NextMove {
  switch (failure.kind) {
    case 'network':
      return { retry: failure.details.presumedDead ? 'now' : 'backoff' };
    case 'server':
    case 'refused':
    case 'protocol':
      return { retry: 'backoff' };
    case 'rate-limited':
      return { wait: failure.details.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS };
    case 'signed-out':
    case 'update-required':
      return { stop: failure.kind };
  }
}
