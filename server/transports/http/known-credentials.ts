import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * What this process has learned about credentials, by a SHA-256 of the whole Authorization header
 * (never the credential itself): which passed their check, and which failed it and with what
 * message. Learned from every address, bounded (least recently used go first).
 *
 * Knowing a credential valid only decides that its check is worth running while its address is
 * refused; the check itself (the token's owner, operations/token-owners.ts) still runs, so a token
 * revoked in any process stops working here as soon as the revocation's notification arrives. Knowing one invalid is final: a token is a
 * random secret, so one that failed never becomes valid (a revoked one stays revoked).
 */
export interface KnownCredentials {
  /** The fingerprint of a request's credential for one kind of check (bearer tokens, the metrics token...). */
  fingerprint(kind: string, authorization: string | undefined): string;
  isValid(fingerprint: string): boolean;
  /** What its check failed with (the message, and details such as why a token is refused), or undefined when it has not failed here. */
  failure(fingerprint: string): KnownFailure | undefined;
  passed(fingerprint: string): void;
  failed(fingerprint: string, failure: KnownFailure): void;
}

export interface KnownFailure {
  message: string;
  details?: Record<string, unknown>;
}

export function knownCredentials({ valid = 50_000, invalid = 10_000 } = {}): KnownCredentials {
  const passed = new LRUCache<string, true>({ max: valid });
  const failed = new LRUCache<string, KnownFailure>({ max: invalid });
  return {
    fingerprint: (kind, authorization) => createHash('sha256').update(kind).update('\0').update(authorization ?? '').digest('base64'),
    isValid: (fingerprint) => passed.get(fingerprint) === true,
    failure: (fingerprint) => failed.get(fingerprint),
    passed(fingerprint) {
      passed.set(fingerprint, true);
    },
    failed(fingerprint, failure) {
      passed.delete(fingerprint);
      failed.set(fingerprint, failure);
    },
  };
}
