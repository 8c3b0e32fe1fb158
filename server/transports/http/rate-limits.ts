import type { Request, RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { errors, isAppError, type AppError } from '../../../shared/index.js';
import type { Database } from '../../storage/db.js';
import { RATE_LIMIT_TABLE, rateLimitConnection } from '../../storage/rate-limits.js';
import { contextOf } from './request-context.js';

/**
 * Per-token request budgets (rate-limiter-flexible), kept in the database so every server process
 * on one PostgreSQL spends from the same budget. Sync pulls and pushes have their own, larger
 * budget: an initial sync is hundreds of requests in a minute and must not starve the office's
 * GraphQL calls of the same token, nor the other way round.
 */
export interface RequestBudgets {
  /** GraphQL, REST and uploads. */
  api: RequestHandler;
  /** Sync pulls, pushes and stream opens. */
  sync: RequestHandler;
}

export function requestBudgets(db: Database, perMinute: { api: number; sync: number }): RequestBudgets {
  return {
    api: budgetPerToken(db, 'api', perMinute.api),
    sync: budgetPerToken(db, 'sync', perMinute.sync),
  };
}

/** Runs after authentication: the budget belongs to the token, whichever process it reaches. */
function budgetPerToken(db: Database, name: string, points: number): RequestHandler {
  if (points <= 0) return (_req, _res, next) => next();
  const limiter = new RateLimiterPostgres({
    storeClient: rateLimitConnection(db),
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix: name,
    points,
    duration: 60,
    // If the store fails, this process keeps counting on its own rather than failing requests.
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${name}-insurance`, points, duration: 60 }),
  });
  return async (req, res, next) => {
    try {
      const spent = await limiter.consume(contextOf(req).viewer.tokenId);
      // The draft IETF RateLimit header fields, so a client can slow down before it is refused.
      res.setHeader('RateLimit-Limit', String(points));
      res.setHeader('RateLimit-Remaining', String(spent.remainingPoints));
      res.setHeader('RateLimit-Reset', String(secondsUntil(spent)));
      next();
    } catch (error) {
      next(error instanceof RateLimiterRes ? overBudget(res, name, points, error) : error);
    }
  };
}

function overBudget(res: Response, name: string, points: number, spent: RateLimiterRes) {
  const retryAfter = secondsUntil(spent);
  res.setHeader('Retry-After', String(retryAfter));
  const budget = name === 'sync' ? 'SYNC_RATE_LIMIT_PER_MINUTE' : 'RATE_LIMIT_PER_MINUTE';
  return errors.rateLimited(`This token made more than ${points} ${name} requests in a minute (${budget}); retry in ${retryAfter} s`, retryAfter);
}

function secondsUntil(spent: { msBeforeNext: number }): number {
  return Math.max(1, Math.ceil(spent.msBeforeNext / 1000));
}

/**
 * Failed authentication per client address (`req.ip`, so behind a proxy the address it passes
 * on; see TRUST_PROXY). Every bearer-token check runs through `guard`: a failure (401) spends from
 * the address's budget, kept in the store like the request budgets so every process counts it;
 * once spent, that address is refused with 429 and Retry-After before its token is even looked
 * up, in every process as soon as that process has seen one more failure from it. A good token
 * from another address is never affected; only the offending address waits.
 */
export interface FailedAuthentication {
  guard<T>(req: Request, res: Response, authenticate: () => T | Promise<T>): Promise<T>;
}

export function failedAuthentication(db: Database, perMinute: number): FailedAuthentication {
  if (perMinute <= 0) return { guard: async (_req, _res, authenticate) => authenticate() };
  const failures = new RateLimiterPostgres({
    storeClient: rateLimitConnection(db),
    storeType: 'pool',
    tableName: RATE_LIMIT_TABLE,
    tableCreated: true,
    keyPrefix: 'auth-failures',
    points: perMinute,
    duration: 60,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: 'auth-failures-insurance', points: perMinute, duration: 60 }),
  });
  // Addresses this process knows to have spent their budget, until when: checked without a query,
  // so refusing them costs nothing (a block here is `points + 1` consumed for its duration).
  const spent = new RateLimiterMemory({ keyPrefix: 'auth-spent', points: 1, duration: 60 });
  const refuse = (res: Response, msBeforeNext: number) => {
    const retryAfter = secondsUntil({ msBeforeNext });
    res.setHeader('Retry-After', String(retryAfter));
    return errors.rateLimited(`Too many failed authentications from this address (AUTH_FAILURES_PER_MINUTE, ${perMinute}); retry in ${retryAfter} s`, retryAfter);
  };
  return {
    async guard(req, res, authenticate) {
      const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      const blocked = await spent.get(address);
      if (blocked && blocked.consumedPoints > 1) throw refuse(res, blocked.msBeforeNext);
      try {
        return await authenticate();
      } catch (error) {
        if (!isUnauthenticated(error)) throw error;
        const counted = await failures.consume(address).catch((over: unknown) => (over instanceof RateLimiterRes ? over : null));
        if (counted && counted.consumedPoints >= perMinute) await spent.block(address, secondsUntil(counted));
        // The failure that spends the budget is still told why it failed; the next ones wait.
        throw counted && counted.consumedPoints > perMinute ? refuse(res, counted.msBeforeNext) : error;
      }
    },
  };
}

function isUnauthenticated(error: unknown): error is AppError {
  return isAppError(error) && error.kind === 'UNAUTHENTICATED';
}
