import { caller, ok } from './api.js';

/**
 * A technician's phone signing in as the office hands it a code (server/operations/README-auth.md):
 * the office makes a one-time code through GraphQL, the phone trades it at POST /phone-sign-in.
 */
export interface MadeCode {
  code: string;
  expiresAt: string;
  link: string;
}

const CREATE_CODE = 'mutation($t: ID!) { createPhoneSignInCode(technicianId: $t) { code expiresAt link } }';

/** A code for the technician, made by the office's token (ADMIN or OFFICE). */
export async function signInCodeFor(server: { url: string }, officeToken: string, technicianId: string): Promise<MadeCode> {
  return ok(await caller(server, officeToken)(CREATE_CODE, { t: technicianId })).createPhoneSignInCode as MadeCode;
}

/** The phone's side: POST /phone-sign-in, answered as it came (`headers` e.g. X-Forwarded-For, to act from another address). */
export async function redeemCode(server: { url: string }, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${server.url}/phone-sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** A new phone of the technician signed in through a code: its token. */
export async function phoneTokenFor(server: { url: string }, officeToken: string, technicianId: string, deviceName = 'Test phone'): Promise<string> {
  const { code } = await signInCodeFor(server, officeToken, technicianId);
  const answer = await redeemCode(server, { code, deviceName });
  if (answer.status !== 201) throw new Error(`phone sign-in failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.token as string;
}
