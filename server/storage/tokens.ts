import { apiTokenResource, userResource, type ApiToken, type Role, type User } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { recordTable } from './records.js';

export const users = recordTable(userResource);
export const apiTokens = recordTable(apiTokenResource);

/** What a bearer token resolves to, revoked or not (the caller says which refusal it is). */
export interface TokenOwner {
  tokenId: string;
  userId: string;
  orgId: string;
  role: Role;
  /** ISO times, as both drivers read them (types.ts). */
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const TOKEN_OWNER = `select t.id as "tokenId", t.user_id as "userId", t.org_id as "orgId", u.role,
    t.created_at as "createdAt", t.last_used_at as "lastUsedAt", t.revoked_at as "revokedAt"
  from api_tokens t join users u on u.org_id = t.org_id and u.id = t.user_id`;

/** The token of this organization with this hash: one organization's rows, one shard on a distributed store. */
export async function findTokenOwner(q: Queryable, orgId: string, tokenHash: string): Promise<TokenOwner | null> {
  const { rows } = await q.query<TokenOwner>(`${TOKEN_OWNER} where t.org_id = $1 and t.token_hash = $2`, [orgId, tokenHash]);
  return rows[0] ?? null;
}

/**
 * The token with this hash in any organization: for tokens issued before they carried their
 * organization. Not routable on a distributed store (every shard is asked); see server/README.md, Beyond one database server.
 */
export async function findTokenOwnerByHash(q: Queryable, tokenHash: string): Promise<TokenOwner | null> {
  const { rows } = await q.query<TokenOwner>(`${TOKEN_OWNER} where t.token_hash = $1`, [tokenHash]);
  return rows[0] ?? null;
}

/** A new token; made at `createdAt` when given (the clock its expiry is judged by), else the database's now. */
export async function insertToken(
  q: Queryable,
  orgId: string,
  values: { id: string; name: string; userId: string; tokenHash: string; createdAt?: Date },
): Promise<void> {
  await q.query(
    'insert into api_tokens (org_id, id, name, user_id, token_hash, created_at) values ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()))',
    [orgId, values.id, values.name, values.userId, values.tokenHash, values.createdAt?.toISOString() ?? null],
  );
}

/**
 * Records use at `at` (the server's clock, the one expiry is judged by), at most once a minute per
 * token, so reads do not each become a write; never backwards.
 */
export async function touchToken(q: Queryable, orgId: string, tokenId: string, at: Date): Promise<void> {
  await q.query(
    `update api_tokens set last_used_at = $3
      where org_id = $1 and id = $2 and (last_used_at is null or last_used_at < $3::timestamptz - interval '1 minute')`,
    [orgId, tokenId, at.toISOString()],
  );
}

export interface TokenWithRole extends ApiToken {
  role: Role;
}

const TOKEN_WITH_ROLE = `select ${apiTokens.selectList('t')}, u.role from api_tokens t
  join users u on u.org_id = t.org_id and u.id = t.user_id`;

function toTokenWithRole(row: Record<string, unknown>): TokenWithRole {
  return { ...apiTokens.toRecord(row), role: row.role as Role };
}

export async function listTokens(q: Queryable, orgId: string): Promise<TokenWithRole[]> {
  const { rows } = await q.query(`${TOKEN_WITH_ROLE} where t.org_id = $1 order by t.created_at, t.id`, [orgId]);
  return rows.map(toTokenWithRole);
}

export async function findToken(q: Queryable, orgId: string, id: string): Promise<TokenWithRole | null> {
  const { rows } = await q.query(`${TOKEN_WITH_ROLE} where t.org_id = $1 and t.id = $2`, [orgId, id]);
  return rows[0] ? toTokenWithRole(rows[0]) : null;
}

/** The organization's users, by name; only those with `role` when given. */
export async function listUsers(q: Queryable, orgId: string, role: Role | null): Promise<User[]> {
  const { rows } = await q.query(
    `select ${users.selectList()} from users where org_id = $1 and ($2::text is null or role = $2) order by name, id`,
    [orgId, role],
  );
  return rows.map((row) => users.toRecord(row));
}

/** The channel that tells every server process a token was revoked (payload: the token id). */
export const REVOCATIONS_CHANNEL = 'pool_revocations';

/** Revokes a token and, at commit, tells every server process (open sync streams end at once). */
export async function revokeToken(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(
    'update api_tokens set revoked_at = coalesce(revoked_at, now()) where org_id = $1 and id = $2',
    [orgId, id],
  );
  await q.query(`select pg_notify('${REVOCATIONS_CHANNEL}', $1)`, [id]);
}

/** Which of these tokens are revoked (or gone): for re-checking open streams after a lost LISTEN. */
export async function revokedAmong(q: Queryable, tokens: readonly { orgId: string; tokenId: string }[]): Promise<Set<string>> {
  if (!tokens.length) return new Set();
  const { rows } = await q.query<{ id: string }>(
    `select t.id from api_tokens t join unnest($1::text[], $2::text[]) as k(org_id, id) on t.org_id = k.org_id and t.id = k.id
      where t.revoked_at is null`,
    [tokens.map((t) => t.orgId), tokens.map((t) => t.tokenId)],
  );
  const live = new Set(rows.map((r) => r.id));
  return new Set(tokens.map((t) => t.tokenId).filter((id) => !live.has(id)));
}

/**
 * The hashes of unrevoked tokens created at or after `since` (every token without `since`), in
 * every organization: what a process knows of which tokens exist (operations/live-tokens.ts).
 */
export async function liveTokenHashes(q: Queryable, since?: string): Promise<string[]> {
  const { rows } = await q.query<{ token_hash: string }>(
    since === undefined
      ? 'select token_hash from api_tokens where revoked_at is null'
      : 'select token_hash from api_tokens where created_at >= $1 and revoked_at is null',
    since === undefined ? [] : [since],
  );
  return rows.map((r) => r.token_hash);
}
