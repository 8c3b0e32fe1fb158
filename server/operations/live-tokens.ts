import type { Queryable } from '../storage/db.js';
import { liveTokenHashes } from '../storage/tokens.js';
import { bearerTokenOf, hashToken, tokenLookup } from './auth.js';

/**
 * Which bearer tokens may be live, known without looking each one up: what lets an address that is
 * flooding bad tokens be refused without refusing a valid token sent from behind the same address
 * (a carrier's NAT, an office), including one this process has never seen (a phone waking up
 * mid-flood, a token issued a moment ago through another process).
 *
 * Every unrevoked token's hash is held by the first 48 bits of its SHA-256, as a number: a few
 * bytes per token, and a guessed token passes by chance about once in 2^48 / tokens (once in
 * three billion with 100,000 tokens). Passing only earns a token its lookup, which stays the
 * authority: a token revoked since it was learned, or expired, fails there as any bad one does. So
 * revocations need not reach this index, and nothing is ever removed from it but by a reload.
 *
 * The index is loaded when first asked (an address has spent its failure budget) and refreshed
 * from the tokens created lately, at most once per `refreshMs`, when a token it does not hold is
 * asked about: a flood costs at most one query per `refreshMs` per process, however fast it comes.
 * A refresh reads back `overlapMs` before the previous one began, so a token whose transaction
 * began earlier but committed after it (its `created_at` is its transaction's start) is not missed.
 */
export interface LiveTokens {
  /** False when the Authorization header's bearer token is certainly not a live token; true when it may be. */
  mayBeLive(authorization: string | undefined): Promise<boolean>;
}

export interface LiveTokenSettings {
  refreshMs?: number;
  overlapMs?: number;
  now?: () => number;
}

export function liveTokens(db: Queryable, { refreshMs = 1_000, overlapMs = 10 * 60_000, now = Date.now }: LiveTokenSettings = {}): LiveTokens {
  const held = new Set<number>();
  let loadedFrom: number | null = null;
  let refreshedAt = -Infinity;
  let refreshing: Promise<void> | null = null;

  const refresh = () =>
    (refreshing ??= (async () => {
      const startedAt = now();
      try {
        const since = loadedFrom === null ? undefined : new Date(loadedFrom - overlapMs).toISOString();
        for (const hash of await liveTokenHashes(db, since)) held.add(prefixOf(hash));
        loadedFrom = startedAt;
      } finally {
        refreshedAt = startedAt;
        refreshing = null;
      }
    })());

  return {
    async mayBeLive(authorization) {
      const token = bearerTokenOf(authorization);
      // A string of neither token form is refused by the lookup without a query: nothing to ask.
      if (!token || tokenLookup(token) === null) return false;
      const prefix = prefixOf(hashToken(token));
      if (held.has(prefix)) return true;
      if (now() - refreshedAt < refreshMs) return false;
      await refresh().catch(() => undefined);
      return held.has(prefix);
    },
  };
}

/** The first 48 bits of a hex SHA-256, as a number (exact: below 2^53). */
function prefixOf(hexHash: string): number {
  return Number.parseInt(hexHash.slice(0, 12), 16);
}
