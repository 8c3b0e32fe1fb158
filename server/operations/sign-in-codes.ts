import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { errors, type RefusalReason } from '../../shared/index.js';
import type { Database, Queryable } from '../storage/db.js';
import { insertSignInCode, pruneSignInCodes, redeemSignInCode, signInCodeState } from '../storage/sign-in-codes.js';
import { users } from '../storage/tokens.js';
import { hashToken, tokenForUser, type IssuedToken } from './auth.js';
import type { AuthPolicy } from './auth-policy.js';
import { requireRole, type OperationContext } from './context.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';

/**
 * Signing a technician's phone in without a lasting secret on a screen (README-auth.md): the office
 * makes a one-time code for the technician, shown as a QR code of the technician app's link; the
 * phone trades it, once and within minutes, for a token of its own that appears on no screen and in
 * no address. The exchange follows the OAuth 2.0 device authorization grant (RFC 8628) in spirit:
 * a short code a person can type, stored hashed, short-lived, guessed against the per-address limit
 * on failed authentications.
 */

/**
 * RFC 8628's alphabet for codes people type: twenty consonants (no vowels, so no words; none
 * mistaken for a digit). Ten of them, shown as two groups of five, are 20^10, about 2^43: held to
 * the per-address limit on failures (60 a minute by default), one address guessing against a code
 * live at all times would need some 100,000 years on average; a thousand addresses, a century. A
 * code lives minutes and works once, so its hash, were it to leak, is worth nothing either.
 */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 10;
const CODE = new RegExp(`^[${ALPHABET}]{${LENGTH}}$`);

/** Codes that expired more than this long ago are deleted as the organization makes new ones. */
const KEPT_AFTER_EXPIRY_MS = 86_400_000;

/** A new code, `XXXXX-XXXXX`, from a uniform draw (randomInt has no modulo bias). */
export function newSignInCode(): string {
  const letters = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${letters.slice(0, LENGTH / 2)}-${letters.slice(LENGTH / 2)}`;
}

/** A code as typed or scanned: case, spaces and dashes do not matter. Null when it cannot be a code. */
export function normalizedCode(text: string): string | null {
  const letters = text.toUpperCase().replace(/[\s-]/g, '');
  return CODE.test(letters) ? letters : null;
}

export interface PhoneSignInCode {
  code: string;
  expiresAt: string;
}

/**
 * ADMIN or OFFICE: a code that signs a phone in as the technician, once, until it expires
 * (`policy.signInCodeMinutes`). Only its hash is kept; the code is answered here and never again.
 */
export async function createPhoneSignInCode(ctx: OperationContext, rawTechnicianId: unknown, policy: AuthPolicy): Promise<PhoneSignInCode> {
  requireRole(ctx.viewer, ['ADMIN', 'OFFICE'], "sign a technician's phone in");
  const technicianId = parseInput(z.string().min(1).max(200), rawTechnicianId);
  const { orgId } = ctx.viewer;
  const technician = await users.findById(ctx.db, orgId, technicianId);
  if (!technician) throw errors.notFound('Technician', technicianId);
  if (technician.role !== 'TECHNICIAN') {
    throw errors.badInput(`User ${technicianId} is ${technician.role}: only a technician's phone signs in by code`, { field: 'technicianId' });
  }
  const now = policy.now();
  const code = newSignInCode();
  const expiresAt = new Date(now.getTime() + policy.signInCodeMinutes * 60_000);
  await ctx.db.transaction(async (tx) => {
    await pruneSignInCodes(tx, orgId, new Date(now.getTime() - KEPT_AFTER_EXPIRY_MS));
    await insertSignInCode(tx, orgId, { id: newId(), codeHash: hashToken(normalizedCode(code)!), userId: technician.id, createdBy: ctx.viewer.userId, expiresAt }, now);
  });
  return { code, expiresAt: expiresAt.toISOString() };
}

const RedeemInput = z.strictObject({
  code: z.string().max(100),
  /** What the phone calls itself (e.g. "Android, Chrome"), in its token's name. */
  deviceName: z.string().trim().max(100).nullish(),
});

/**
 * Unauthenticated (the phone has nothing yet): trades a code for a new TECHNICIAN token of the
 * code's technician, named for the phone, revocable alone. A wrong, used or expired code is
 * UNAUTHENTICATED with its reason, so the transport counts it as a failed authentication.
 */
export async function redeemPhoneSignInCode(db: Database, rawInput: unknown, policy: AuthPolicy): Promise<IssuedToken> {
  const input = parseInput(RedeemInput, rawInput);
  const normalized = normalizedCode(input.code);
  if (!normalized) throw refused('code-unknown', policy);
  const codeHash = hashToken(normalized);
  const now = policy.now();
  return db.transaction(async (tx) => {
    const tokenId = newId();
    const redeemed = await redeemSignInCode(tx, codeHash, tokenId, now);
    if (!redeemed) throw refused(await whyNotRedeemed(tx, codeHash), policy);
    const technician = await users.findById(tx, redeemed.orgId, redeemed.userId);
    // Roles do not change today; should one, a code must not sign in as anything but a technician.
    if (technician?.role !== 'TECHNICIAN') throw refused('code-unknown', policy);
    return tokenForUser(tx, redeemed.orgId, phoneTokenName(technician.name, input.deviceName), technician.id, { id: tokenId, at: now });
  });
}

async function whyNotRedeemed(q: Queryable, codeHash: string): Promise<RefusalReason> {
  const state = await signInCodeState(q, codeHash);
  if (!state) return 'code-unknown';
  return state.redeemedAt ? 'code-used' : 'code-expired';
}

const REFUSALS: Partial<Record<RefusalReason, (policy: AuthPolicy) => string>> = {
  'code-unknown': () => 'This sign-in code is not one the office made: check it, or ask the office for a new one',
  'code-used': () => 'This sign-in code has been used already (it works once): ask the office for a new one',
  'code-expired': (policy) => `This sign-in code has expired (it works for ${policy.signInCodeMinutes} minutes): ask the office for a new one`,
};

function refused(reason: RefusalReason, policy: AuthPolicy) {
  return errors.unauthenticated(REFUSALS[reason]!(policy), { reason });
}

/** "Sam Carter's phone (Android, Chrome)": how the office tells the technician's phones apart in its token list. */
function phoneTokenName(technician: string, deviceName: string | null | undefined): string {
  const name = `${technician}'s phone${deviceName ? ` (${deviceName})` : ''}`;
  return name.slice(0, 200);
}
