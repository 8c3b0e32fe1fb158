import type { RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../../../shared/index.js';
import type { Database } from '../../storage/db.js';
import { RATE_LIMIT_TABLE, rateLimitConnection } from '../../storage/rate-limits.js';
import { contextOf } from './request-context.js';
import { retryAfter, secondsUntil } from './retry-after.js';

/**
 * Per-token request budgets (rate-limiter-flexible), kept in the database on PostgreSQL so every
 * server process on it spends from the same budget, and in memory on the embedded store, which
 * one process owns. Sync pulls and pushes have their own, larger
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
  const limiter = db.engine === 'pglite' ? memoryBudget(db, name, points) : sharedBudget(db, name, points);
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

/** On PostgreSQL, in the store: every process on it spends from the same budget. */
function sharedBudget(db: Database, name: string, points: number): RateLimiterAbstract {
  return new RateLimiterPostgres({
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
}

/**
 * On the embedded store, in memory: one process owns the store (its folder is locked), so its
 * count is the only one, and a request need not wait on the store's one thread for it (an upsert
 * per request, about a tenth of a one-visit push there). One count per store and budget, should a
 * process build several apps over one store (tests do). A restart forgets at most a minute's count.
 */
const memoryBudgets = new WeakMap<Database, Map<string, RateLimiterMemory>>();

function memoryBudget(db: Database, name: string, points: number): RateLimiterMemory {
  let budgets = memoryBudgets.get(db);
  if (!budgets) memoryBudgets.set(db, (budgets = new Map()));
  const key = `${name}/${points}`;
  let limiter = budgets.get(key);
  if (!limiter) budgets.set(key, (limiter = new RateLimiterMemory({ keyPrefix: name, points, duration: 60 })));
  return limiter;
}

function overBudget(res: Response, name: string, points: number, spent: RateLimiterRes) {
  const seconds = retryAfter(res, spent.msBeforeNext);
  const budget = name === 'sync' ? 'SYNC_RATE_LIMIT_PER_MINUTE' : 'RATE_LIMIT_PER_MINUTE';
  return errors.rateLimited(`This token made more than ${points} ${name} requests in a minute (${budget}); retry in ${seconds} s`, seconds);
}
