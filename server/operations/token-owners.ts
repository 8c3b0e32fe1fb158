import { LRUCache } from 'lru-cache';
import type { Database } from '../storage/db.js';
import type { TokenOwner } from '../storage/tokens.js';

/**
 * The owners of the bearer tokens this process has looked up, by token hash, so that a request
 * does not wait on the database for its token: one round trip of every request (a one-visit push
 * made nine; see test/bench/RESULTS.md, A one-visit push).
 *
 * What can change about a token once issued is only that it is revoked or used (its user's role
 * and organization never change), so an owner is kept until its token is revoked. Revocations
 * reach every process as the `pool_revocations` notification (storage/tokens.ts): the live fan-out
 * listens to it and tells this cache (`revoked`), and the process that revokes tells it at once,
 * before answering. Owners are served only while that listening holds: when its connection is
 * lost a revocation could be missed, so everything is forgotten and nothing is kept until it
 * listens again (`listening`). A lookup that was in flight when a revocation or a loss arrived is
 * answered but not kept: it may have read the token before the revocation committed.
 *
 * One cache per store per process (`tokenOwnersOf`): the store is what revocations are made in.
 */
export class TokenOwners {
  private readonly owners: LRUCache<string, TokenOwner>;
  private serving = false;
  /** Moves on at every revocation, loss and start of listening: a lookup begun before is not kept. */
  private generation = 0;

  constructor(max = 50_000) {
    this.owners = new LRUCache({ max });
  }

  /** Revocations are heard from now on (listening began, or began again after a loss). */
  listening(): void {
    this.forgetAll();
    this.serving = true;
  }

  /** Revocations may go unheard (the listening connection is lost, or listening stopped). */
  deaf(): void {
    this.serving = false;
    this.forgetAll();
  }

  revoked(tokenId: string): void {
    this.generation += 1;
    for (const [hash, owner] of this.owners.entries()) if (owner.tokenId === tokenId) this.owners.delete(hash);
  }

  /** The owner of the token with this hash: kept, or looked up by `load` (and kept while unrevoked and still listening). */
  async ownerOf(tokenHash: string, load: () => Promise<TokenOwner | null> | null): Promise<{ owner: TokenOwner | null; kept: boolean }> {
    const kept = this.serving ? this.owners.get(tokenHash) : undefined;
    if (kept) return { owner: kept, kept: true };
    const generation = this.generation;
    const owner = await load();
    if (owner && !owner.revokedAt && this.serving && generation === this.generation) this.owners.set(tokenHash, owner);
    return { owner, kept: false };
  }

  /** The token's use was recorded at `at`: its kept owner's idle expiry moves with it. */
  used(tokenHash: string, at: string): void {
    const owner = this.owners.peek(tokenHash);
    if (owner) this.owners.set(tokenHash, { ...owner, lastUsedAt: at });
  }

  private forgetAll(): void {
    this.generation += 1;
    this.owners.clear();
  }
}

const byStore = new WeakMap<Database, TokenOwners>();

/** This process's cache of the store's token owners. */
export function tokenOwnersOf(db: Database): TokenOwners {
  let owners = byStore.get(db);
  if (!owners) byStore.set(db, (owners = new TokenOwners()));
  return owners;
}
