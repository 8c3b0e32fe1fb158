import type { RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { errors } from '../../../shared/index.js';
import type { Database } from '../../storage/db.js';
import { RATE_LIMIT_TABLE, rateLimitConnection } from '../../storage/rate-limits.js';
import { contextOf } from './request-context.js';
import { retryAfter, secondsUntil } from './retry-after.js';

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
      res.setHeader('RateLimit-Reset', String(secondsUntil(spent.msBeforeNext)));
      next();
    } catch (error) {
      next(error instanceof RateLimiterRes ? overBudget(res, name, points, error) : error);
    }
  };
}

function overBudget(res: Response, name: string, points: number, spent: RateLimiterRes) {
  const seconds = retryAfter(res, spent.msBeforeNext);
  const budget = name === 'sync' ? 'SYNC_RATE_LIMIT_PER_MINUTE' : 'RATE_LIMIT_PER_MINUTE';
  return errors.rateLimited(`This token made more than ${points} ${name} requests in a minute (${budget}); retry in ${seconds} s`, seconds);
}
