import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { errors, isAppError, type AppError } from '../../../shared/index.js';
import type { Database } from '../../storage/db.js';
import { RATE_LIMIT_TABLE, rateLimitConnection } from '../../storage/rate-limits.js';
import { knownCredentials, type KnownCredentials } from './known-credentials.js';
import { retryAfter } from './retry-after.js';

/**
 * Failed authentication is throttled per client address (`req.ip`: behind a proxy, the address it
 * passes on; see TRUST_PROXY), and what is throttled is the failing, never the valid: many users
 * share one address (a carrier's NAT, an office), and one broken script or one attacker behind it
 * must not lock the others out. See README.md beside this file.
 */
export interface AuthGate {
  /**
   * Runs `check` (which throws UNAUTHENTICATED for a bad credential) and returns what it returns,
   * unless the request is refused first: 429 with Retry-After for a credential not known valid
   * from an address that has spent its budget, or 401 for one that already failed here.
   * `credential` is what is checked when it is not the Authorization header (a phone's sign-in code, in the body).
   */
  pass<T>(req: Request, res: Response, check: () => T | Promise<T>, credential?: string): Promise<T>;
}

export interface AuthThrottle {
  /** The gate of one kind of credential: each kind is learned apart; all spend the address's one budget. */
  gate(kind: string, options?: GateOptions): AuthGate;
}

export interface GateOptions {
  /**
   * Whether a credential not known valid here may still be valid, answered without its check
   * (operations/live-tokens.ts for bearer tokens): such a credential is checked even from an
   * address past its budget, so a valid token this process has not seen yet is served too.
   */
  mayBeValid?(req: Request): Promise<boolean>;
}

export interface AuthThrottleSettings {
  /** Failures an address may make in a window before its unknown credentials are refused (0: no limit). */
  failuresPerWindow: number;
  /** The window: 60 s (AUTH_FAILURES_PER_MINUTE); tests shorten it. */
  windowSeconds?: number;
}

export function authThrottle(db: Database, { failuresPerWindow, windowSeconds = 60 }: AuthThrottleSettings): AuthThrottle {
  if (failuresPerWindow <= 0) return { gate: () => ({ pass: async (_req, _res, check) => check() }) };
  const budget = failureBudget(db, failuresPerWindow, windowSeconds);
  const known = knownCredentials();
  return { gate: (kind, options = {}) => gate(kind, known, budget, options) };
}

function gate(kind: string, known: KnownCredentials, budget: FailureBudget, { mayBeValid }: GateOptions): AuthGate {
  const checked = async <T>(fingerprint: string, address: string, res: Response, check: () => T | Promise<T>): Promise<T> => {
    try {
      const result = await check();
      known.passed(fingerprint);
      return result;
    } catch (error) {
      if (!isUnauthenticated(error)) throw error;
      known.failed(fingerprint, { message: error.message, details: error.details });
      // The failure that spends the budget is still told why it failed; any past it waits.
      const overMs = await budget.spend(address);
      throw overMs > 0 ? budget.refusal(res, overMs) : error;
    }
  };
  return {
    async pass(req, res, check, credential = req.get('authorization')) {
      const fingerprint = known.fingerprint(kind, credential);
      const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      // A credential that passed here before is checked whatever its address did.
      if (known.isValid(fingerprint)) return checked(fingerprint, address, res, check);
      const refusedMs = budget.refusedFor(address);
      if (refusedMs > 0 && !(await mayBeValid?.(req))) throw budget.refusal(res, refusedMs);
      // The same bad credential again (a device with a revoked token, a misconfigured script) is
      // told so without a lookup and spends nothing: only new failures are guesses.
      const failure = known.failure(fingerprint);
      if (failure !== undefined) throw errors.unauthenticated(failure.message, failure.details);
      return checked(fingerprint, address, res, check);
    },
  };
}

/**
 * An address's failures in the shared store (rate-limiter-flexible, table rate_limits), so every
 * process on one PostgreSQL counts them, and which addresses this process knows to have spent
 * theirs, until when: that is asked per request, so it is memory, not a query.
 */
interface FailureBudget {
  /** Milliseconds this process still refuses the address's unknown credentials; 0: not refused. */
  refusedFor(address: string): number;
  /**
   * Counts a failure; once the window's budget is spent, the address is refused here until the
   * window ends. Resolves to how long it is refused when this failure went past the budget, else 0.
   */
  spend(address: string): Promise<number>;
  refusal(res: Response, ms: number): AppError;
}

function failureBudget(db: Database, points: number, windowSeconds: number): FailureBudget {
  const store = new RateLimiterPostgres({
    storeClient: rateLimitConnection(db),
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix: 'auth-failures',
    points,
    duration: windowSeconds,
    // If the store fails, this process keeps counting on its own rather than failing requests.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: 'auth-failures-insurance', points, duration: windowSeconds }),
  });
  // Bounded: an address gets here only by failing `points` lookups; one pushed out is looked up once more.
  const refused = new LRUCache<string, true>({ max: 10_000, ttl: windowSeconds * 1000 });
  return {
    refusedFor: (address) => Math.max(0, refused.getRemainingTTL(address)),
    async spend(address) {
      const counted = await store.consume(address).catch((over: unknown) => (over instanceof RateLimiterRes ? over : null));
      // The first process to spend the budget knows at once; any other after its next failure.
      if (!counted || counted.consumedPoints < points) return 0;
      refused.set(address, true, { ttl: Math.max(1, counted.msBeforeNext) });
      return counted.consumedPoints > points ? Math.max(1, counted.msBeforeNext) : 0;
    },
    refusal(res, ms) {
      const seconds = retryAfter(res, ms);
      return errors.rateLimited(`Too many failed authentications from this address (AUTH_FAILURES_PER_MINUTE, ${points}); retry in ${seconds} s`, seconds);
    },
  };
}

function isUnauthenticated(error: unknown): error is AppError {
  return isAppError(error) && error.kind === 'UNAUTHENTICATED';
}
