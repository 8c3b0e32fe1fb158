import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (symmetric, `v1`): the secret is `whsec_` + base64 of 32 random
 * bytes; the signature is HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` keyed with
 * the secret's bytes, sent as `v1,<base64>`. Several secrets (during a rotation) give several
 * signatures, space-separated: a receiver accepts the message when any one verifies.
 */
export const SECRET_PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function signatureWith(secret: string, signed: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
}

/** The `webhook-signature` header's value for one message. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => signatureWith(secret, signed)).join(' ');
}
