import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError, errors } from '../../shared/index.js';
import { claimKey, pruneKeys, saveAnswer, storedKey, type KeyRef } from '../storage/idempotency-keys.js';
import { databaseWithin } from '../storage/savepoints.js';
import type { Queryable } from '../storage/db.js';
import type { OperationContext } from './context.js';
import { parseInput } from './input.js';

/**
 * Requests sent with an Idempotency-Key header are done once. The key is claimed, the request is
 * done and its answer stored, all in one transaction: a crash leaves either all of it or none,
 * so a committed write always has its key and a retry after a lost answer is answered from the
 * store, with the same ids, instead of being done again.
 */
const Key = z.string().min(1, 'may not be empty').max(200, 'is at most 200 characters');

/** How long a retry waits for a first request with its key that is still running. */
export const DEFAULT_KEY_WAIT_MS = 10_000;

export interface Outcome<A> {
  answer: A;
  /** False for an answer that must not be kept (a failure worth retrying): the writes are undone too. */
  keep: boolean;
  /** What a retry is answered instead of `answer`, when that shows something only once (a secret). */
  stored?: A;
}

export interface Answered<A> {
  answer: A;
  /** True when the answer is the one stored for an earlier request with the key. */
  replayed: boolean;
}

/** A digest of what makes two requests the same request; give it the parts in a fixed order. */
export function requestHash(...parts: unknown[]): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/**
 * Does `run` once per (organization, user, key). `run` receives a context whose database is the
 * request's transaction. A retry with the key and the same `hash` gets the first answer; with
 * another hash it is refused (BAD_USER_INPUT) and changes nothing; while the first still runs it
 * waits for it, at most `waitMs`, then is told to retry (CONFLICT, retryAfterSeconds).
 */
export async function doOnce<A>(
  ctx: OperationContext,
  rawKey: unknown,
  hash: string,
  run: (ctx: OperationContext) => Promise<Outcome<A>>,
  waitMs = DEFAULT_KEY_WAIT_MS,
): Promise<Answered<A>> {
  const ref: KeyRef = { orgId: ctx.viewer.orgId, userId: ctx.viewer.userId, key: parseKey(rawKey) };
  let discarded: { answer: A } | null = null;
  try {
    return await ctx.db.transaction(async (tx) => {
      const stored = await claimOrRead(tx, ref, hash, waitMs);
      if (stored) return { answer: stored as A, replayed: true };
      const outcome = await run({ ...ctx, db: databaseWithin(tx, ctx.db) });
      if (!outcome.keep) {
        discarded = { answer: outcome.answer };
        throw DISCARD;
      }
      await saveAnswer(tx, ref, outcome.stored ?? outcome.answer);
      return { answer: outcome.answer, replayed: false };
    });
  } catch (error) {
    if (error === DISCARD && discarded) return { answer: (discarded as { answer: A }).answer, replayed: false };
    throw error;
  }
}

/** Thrown to roll back a request whose answer is not kept. */
const DISCARD = new Error('idempotent request rolled back');

/** Null when this transaction holds the key now; the stored answer when an earlier one did. */
async function claimOrRead(tx: Queryable, ref: KeyRef, hash: string, waitMs: number): Promise<unknown | null> {
  const claim = await claimKey(tx, ref, hash, waitMs);
  if (claim === 'claimed') return null;
  if (claim === 'busy') {
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still running; retry it shortly with the same key', {
      retryAfterSeconds: 1,
    });
  }
  const stored = await storedKey(tx, ref);
  if (!stored || stored.requestHash !== hash) {
    throw errors.badInput('This Idempotency-Key was used with a different request; a new request needs a new key', {
      fields: ['Idempotency-Key'],
    });
  }
  return stored.answer;
}

function parseKey(raw: unknown): string {
  try {
    return parseInput(Key, raw);
  } catch {
    throw errors.badInput('The Idempotency-Key header must be 1 to 200 characters', { fields: ['Idempotency-Key'] });
  }
}

/** Deletes keys older than `hours` as of `now`; returns how many. */
export function pruneIdempotencyKeys(q: Queryable, hours: number, now = new Date()): Promise<number> {
  return pruneKeys(q, new Date(now.getTime() - hours * 3_600_000));
}

/** JSON with object keys sorted, so the same values always give the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
