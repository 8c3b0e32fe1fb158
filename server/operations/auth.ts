import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { errors, ROLES, type Role } from '../../shared/index.js';
import type { Database, Queryable } from '../storage/db.js';
import {
  findToken,
  findTokenOwner,
  findTokenOwnerByHash,
  insertToken,
  listTokens,
  listUsers,
  revokeToken,
  touchToken,
  users,
  type TokenOwner,
  type TokenWithRole,
} from '../storage/tokens.js';
import { idleExpiryOf, type AuthPolicy } from './auth-policy.js';
import { OFFICE_ROLES, requireRole, type OperationContext, type Viewer } from './context.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';
import { tokenOwnersOf } from './token-owners.js';

/**
 * Bearer tokens: `pst_<organization id>_<32 random bytes, base64url>`, shown once, stored as a
 * SHA-256 hash of the whole token. A token belongs to one user, who has one role in one
 * organization. The organization in the token makes its lookup routable, (org_id, token_hash),
 * which a distributed store answers from one shard; it grants nothing by itself (the hash covers
 * it, so a token with another organization written in is simply unknown). Tokens issued before
 * (`pst_<secret>`) are still found, by their hash alone.
 */
const TOKEN_PREFIX = 'pst_';
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const WITH_ORGANIZATION = /^pst_(.+)_([A-Za-z0-9_-]{43})$/;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function generateToken(orgId: string): string {
  return `${TOKEN_PREFIX}${orgId}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Where a token is looked up: among its organization's tokens; among every organization's (a
 * token issued before tokens carried one); or nowhere, when it has neither form (no query at all).
 */
export type TokenLookup = { orgId: string } | 'any organization' | null;

export function tokenLookup(token: string): TokenLookup {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  if (SECRET.test(token.slice(TOKEN_PREFIX.length))) return 'any organization';
  const orgId = WITH_ORGANIZATION.exec(token)?.[1];
  return orgId ? { orgId } : null;
}

/** Reads `Authorization: Bearer <token>`; null when absent or not of that form. */
export function bearerTokenOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/**
 * Resolves a bearer token to its viewer, or throws UNAUTHENTICATED with the reason (shared/errors.ts,
 * REFUSAL_REASONS): `unknown`, `revoked`, or `expired` (unused longer than the policy allows).
 */
export async function authenticate(db: Database, authorization: string | undefined, policy: AuthPolicy): Promise<Viewer> {
  const token = bearerTokenOf(authorization);
  if (!token) throw errors.unauthenticated();
  const tokenHash = hashToken(token);
  const owners = tokenOwnersOf(db);
  let { owner, kept } = await owners.ownerOf(tokenHash, () => ownerOfToken(db, token, tokenHash));
  const now = policy.now();
  // A kept owner's last use may be older than the store's (used through another process since):
  // it is asked again before the token is refused as expired.
  if (owner && kept && isExpired(owner, policy, now)) owner = await ownerOfToken(db, token, tokenHash);
  if (!owner) throw errors.unauthenticated('The bearer token is unknown', { reason: 'unknown' });
  if (owner.revokedAt) throw errors.unauthenticated('The bearer token has been revoked', { reason: 'revoked' });
  if (isExpired(owner, policy, now)) {
    throw errors.unauthenticated(`The bearer token went unused for more than ${policy.tokenIdleDays} days and has expired (TOKEN_IDLE_DAYS)`, { reason: 'expired' });
  }
  if (isStale(owner.lastUsedAt, now)) {
    owners.used(tokenHash, now.toISOString());
    void touchToken(db, owner.orgId, owner.tokenId, now).catch(() => {});
  }
  return { userId: owner.userId, orgId: owner.orgId, role: owner.role, tokenId: owner.tokenId };
}

function isExpired(owner: TokenOwner, policy: AuthPolicy, now: Date): boolean {
  const expiry = idleExpiryOf(owner, policy);
  return expiry !== null && expiry <= now;
}

function ownerOfToken(db: Database, token: string, tokenHash: string): Promise<TokenOwner | null> | null {
  const lookup = tokenLookup(token);
  if (lookup === null) return null;
  return lookup === 'any organization' ? findTokenOwnerByHash(db, tokenHash) : findTokenOwner(db, lookup.orgId, tokenHash);
}

function isStale(lastUsedAt: string | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - Date.parse(lastUsedAt) > 60_000;
}

export interface IssuedToken {
  token: string;
  apiToken: TokenWithRole;
}

const CreateTokenInput = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  role: z.enum(ROLES),
  /** A further token for this existing user instead of a new user; the role must be theirs. */
  userId: z.string().min(1).max(200).nullish(),
});

/** Creates a user with the role and a token for it, inside an open transaction. */
export async function issueToken(
  tx: Queryable,
  orgId: string,
  input: { name: string; role: Role },
): Promise<IssuedToken> {
  const user = await users.insert(tx, orgId, { id: newId(), name: input.name, role: input.role, email: null });
  return tokenForUser(tx, orgId, input.name, user.id);
}

/**
 * A new token (named `name`) for the user, inside an open transaction; `made` gives its id and
 * the time it is made at (the auth policy's clock), when the caller has them.
 */
export async function tokenForUser(tx: Queryable, orgId: string, name: string, userId: string, made: { id?: string; at?: Date } = {}): Promise<IssuedToken> {
  const token = generateToken(orgId);
  const id = made.id ?? newId();
  await insertToken(tx, orgId, { id, name, userId, tokenHash: hashToken(token), ...(made.at ? { createdAt: made.at } : {}) });
  return { token, apiToken: (await findToken(tx, orgId, id))! };
}

/** A further token for an existing user of the organization, inside an open transaction. */
async function issueTokenFor(tx: Queryable, orgId: string, input: { name: string; role: Role; userId: string }): Promise<IssuedToken> {
  const user = await users.findById(tx, orgId, input.userId);
  if (!user) throw errors.notFound('User', input.userId);
  if (user.role !== input.role) throw errors.badInput(`User ${input.userId} is ${user.role}, not ${input.role}`, { field: 'role' });
  return tokenForUser(tx, orgId, input.name, user.id);
}

/**
 * ADMIN only. The token is returned here and never again. Without `userId` the token is a new user
 * with the role; with one, another token of that user (a device an integration manages). A
 * technician's phone signs in by a one-time code instead (sign-in-codes.ts), so its token is never
 * on a screen.
 */
export async function createApiToken(ctx: OperationContext, rawInput: unknown): Promise<IssuedToken> {
  requireRole(ctx.viewer, ['ADMIN'], 'create API tokens');
  const { userId, ...input } = parseInput(CreateTokenInput, rawInput);
  return ctx.db.transaction((tx) => (userId ? issueTokenFor(tx, ctx.viewer.orgId, { ...input, userId }) : issueToken(tx, ctx.viewer.orgId, input)));
}

/** ADMIN only. Revoking twice is harmless; revoking your own token is allowed. */
export async function revokeApiToken(ctx: OperationContext, id: string): Promise<TokenWithRole> {
  requireRole(ctx.viewer, ['ADMIN'], 'revoke API tokens');
  const existing = await findToken(ctx.db, ctx.viewer.orgId, id);
  if (!existing) throw errors.notFound('API token', id);
  await ctx.db.transaction((tx) => revokeToken(tx, ctx.viewer.orgId, id));
  // Every process hears of it by notification; this one forgets the token before answering.
  tokenOwnersOf(ctx.db).revoked(id);
  return (await findToken(ctx.db, ctx.viewer.orgId, id))!;
}

export async function listApiTokens(ctx: OperationContext): Promise<TokenWithRole[]> {
  requireRole(ctx.viewer, ['ADMIN'], 'list API tokens');
  return listTokens(ctx.db, ctx.viewer.orgId);
}

export async function currentUser(ctx: OperationContext) {
  const user = await users.findById(ctx.db, ctx.viewer.orgId, ctx.viewer.userId);
  if (!user) throw errors.unauthenticated('The user of this token no longer exists');
  return user;
}

/** The organization's people (technicians for the dispatch board, the office); not for technicians. */
export async function listOrganizationUsers(ctx: OperationContext, role: unknown) {
  requireRole(ctx.viewer, OFFICE_ROLES, 'list users');
  const wanted = role == null ? null : parseInput(z.enum(ROLES), role);
  return listUsers(ctx.db, ctx.viewer.orgId, wanted);
}
