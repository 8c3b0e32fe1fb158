import type { ReplicaDatabase } from '../replica/database.js';

/**
 * Each collection's pull position (the `seq` of the last change applied), kept in the replica's
 * local documents so a restarted client continues where it was.
 */
export class Checkpoints {
  private readonly cache = new Map<string, number>();

  constructor(private readonly db: ReplicaDatabase) {}

  async get(collection: string): Promise<number> {
    const cached = this.cache.get(collection);
    if (cached !== undefined) return cached;
    const doc = await this.db.getLocal<{ seq: number }>(key(collection));
    const seq = doc?.get('seq') ?? 0;
    this.cache.set(collection, seq);
    return seq;
  }

  /** Every collection back to the start of its feed: the next pull brings the whole scope again. */
  async reset(collections: readonly string[]): Promise<void> {
    for (const collection of collections) {
      await this.db.upsertLocal(key(collection), { seq: 0 });
      this.cache.set(collection, 0);
    }
  }

  async set(collection: string, seq: number): Promise<void> {
    if (this.cache.get(collection) === seq) return;
    await this.db.upsertLocal(key(collection), { seq });
    this.cache.set(collection, seq);
  }
}

const key = (collection: string) => `checkpoint-${collection}`;
