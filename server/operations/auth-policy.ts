import type { Role } from '../../shared/index.js';

/**
 * How long credentials last (README-auth.md beside this file): the server's settings
 * (TOKEN_IDLE_DAYS, PHONE_SIGN_IN_CODE_MINUTES) and the clock they are judged by, which tests move
 * instead of waiting a month.
 */
export interface AuthPolicy {
  /** Days a token of an expiring role may go unused before it stops working. */
  tokenIdleDays: number;
  /** Minutes a phone sign-in code works. */
  signInCodeMinutes: number;
  now(): Date;
}

/**
 * Roles whose tokens expire when unused for `tokenIdleDays`: people's devices, which hold a replica
 * of the organization's customers (a phone, an office browser). ADMIN tokens do not: most
 * organizations have one admin, whom a holiday would lock out of everything (only the platform's
 * operator could let them back in); nor do API tokens: an integration may run once a quarter, on a
 * server, with nobody to sign in again when it silently stops. Both are revoked by hand.
 */
export const IDLE_EXPIRING_ROLES: readonly Role[] = ['TECHNICIAN', 'OFFICE'];

const DAY_MS = 86_400_000;

/** When a token stops working unless used before (null: never by disuse). */
export function idleExpiryOf(token: { role: Role; createdAt: string; lastUsedAt: string | null }, policy: AuthPolicy): Date | null {
  if (!IDLE_EXPIRING_ROLES.includes(token.role)) return null;
  return new Date(Date.parse(token.lastUsedAt ?? token.createdAt) + policy.tokenIdleDays * DAY_MS);
}
