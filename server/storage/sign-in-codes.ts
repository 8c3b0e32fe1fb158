import type { Queryable } from './db.js';

/**
 * Phone sign-in codes (migration 0025): made by the office, redeemed once by a phone for a token of
 * its own (operations/sign-in-codes.ts). Times come from the caller's clock, the one expiry is
 * judged by.
 */
export interface NewSignInCode {
  id: string;
  codeHash: string;
  userId: string;
  createdBy: string;
  expiresAt: Date;
}

export async function insertSignInCode(q: Queryable, orgId: string, code: NewSignInCode, at: Date): Promise<void> {
  await q.query(
    `insert into phone_sign_in_codes (org_id, id, code_hash, user_id, created_by, created_at, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [orgId, code.id, code.codeHash, code.userId, code.createdBy, at.toISOString(), code.expiresAt.toISOString()],
  );
}

/** Whom a redeemed code signs in. */
export interface RedeemedCode {
  orgId: string;
  userId: string;
}

/**
 * Marks the code redeemed for `tokenId`, if it is unredeemed and unexpired at `at`: one update, so
 * of two transactions redeeming one code the second finds it redeemed (PostgreSQL re-checks the
 * row once the first commits) and gets null.
 */
export async function redeemSignInCode(q: Queryable, codeHash: string, tokenId: string, at: Date): Promise<RedeemedCode | null> {
  const { rows } = await q.query<RedeemedCode>(
    `update phone_sign_in_codes set redeemed_at = $3, token_id = $2
      where code_hash = $1 and redeemed_at is null and expires_at > $3
      returning org_id as "orgId", user_id as "userId"`,
    [codeHash, tokenId, at.toISOString()],
  );
  return rows[0] ?? null;
}

/** A code that could not be redeemed: used, expired, or never made (null). */
export async function signInCodeState(q: Queryable, codeHash: string): Promise<{ redeemedAt: string | null; expiresAt: string } | null> {
  const { rows } = await q.query<{ redeemedAt: string | null; expiresAt: string }>(
    `select redeemed_at as "redeemedAt", expires_at as "expiresAt" from phone_sign_in_codes where code_hash = $1`,
    [codeHash],
  );
  return rows[0] ?? null;
}

/** Deletes the organization's codes that expired before `before`. */
export async function pruneSignInCodes(q: Queryable, orgId: string, before: Date): Promise<void> {
  await q.query('delete from phone_sign_in_codes where org_id = $1 and expires_at < $2', [orgId, before.toISOString()]);
}
