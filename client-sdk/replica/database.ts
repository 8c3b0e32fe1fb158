import { createRxDatabase, type RxCollection, type RxDatabase, type RxStorage } from 'rxdb';
import { replicatedResources, rxSchemaOf } from '../../shared/index.js';

/**
 * The device replica: one RxDB collection per replicated resource, its schema derived from
 * shared/ (ten collections, under RxDB's open-source limit of 13 per process).
 */
export type ReplicaCollections = Record<string, RxCollection>;
export type ReplicaDatabase = RxDatabase<ReplicaCollections>;

export async function createReplicaDatabase(name: string, storage: RxStorage<unknown, unknown>): Promise<ReplicaDatabase> {
  const db = await createRxDatabase<ReplicaCollections>({ name, storage, multiInstance: false, closeDuplicates: true });
  await db.addCollections(
    Object.fromEntries(replicatedResources.map((r) => [r.collection!, { schema: rxSchemaOf(r) as never }])),
  );
  return db;
}

/** The replicated collection names, in dependency order. */
export const COLLECTION_NAMES = replicatedResources.map((r) => r.collection!);
