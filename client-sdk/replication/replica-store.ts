import { registerMutableWriteContext, type RxCollection, type RxDocumentData } from 'rxdb';
import { isReplicaKey, replicaKeysOf, type DocState } from '../../shared/index.js';
import { SYNC_INSERT_CONTEXT, SYNC_WRITE_CONTEXT } from '../replica/capture.js';

/**
 * Reads and writes of replica documents below RxDB's document API, at its storage instance (as
 * RxDB's own replication does): one bulk write per batch, tombstones included, and every write
 * still reaches the collection's queries and observers through RxDB's change stream.
 */
export type { DocState } from '../../shared/index.js';
export type Stored = RxDocumentData<DocState>;

const BOOKKEEPING = new Set(['_meta', '_rev', '_attachments']);

/** Current stored documents by id, tombstones included. */
export async function readStored(collection: RxCollection, ids: readonly string[]): Promise<Map<string, Stored>> {
  if (!ids.length) return new Map();
  const docs = (await collection.storageInstance.findDocumentsById([...new Set(ids)], true)) as Stored[];
  return new Map(docs.map((d) => [d.id, d]));
}

/** A stored document of the collection as the protocol carries it: its fields and `_deleted` (no bookkeeping, no replica keys). */
export function stateOf(stored: Stored, collection: string): DocState {
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) if (!BOOKKEEPING.has(key) && !isReplicaKey(collection, key)) state[key] = value;
  state._deleted = stored._deleted === true;
  return state as DocState;
}

/**
 * Writes documents over what is stored (`current`, read under the same write lock). A tombstone
 * for a document the replica never had is not written.
 *
 * RxDB's bookkeeping is added to the states themselves, and new documents written by
 * insertStates are stored as they are (RxDB copies the others), so a caller passes states nothing
 * else holds: pulled pages, or copies. Copying every pulled document instead cost about 0.3 s of a
 * 50,000-visit initial sync, most of it collecting the copies' originals, and some 30 MB of peak
 * memory.
 */
export async function writeStates(collection: RxCollection, states: readonly DocState[], current: Map<string, Stored>): Promise<void> {
  const result = await bulkWrite(collection, states, current);
  if (result.error.length) throw writeFailure(collection, result.error[0]!);
}

/**
 * Writes live states as new documents, without reading first: on a replica being filled (a first
 * sync) nearly every pulled document is new to it, and a read of our own beforehand read every
 * document once more (the browser's storage adds a new document without any read at all:
 * replica/indexeddb/). Those the replica holds already are not written: they are answered, each
 * with what is stored (RxDB's conflict carries it), for the caller to write over as it would have
 * after reading.
 */
export async function insertStates(collection: RxCollection, states: readonly DocState[]): Promise<Map<string, Stored>> {
  const held = new Map<string, Stored>();
  const result = await bulkWrite(collection, states, new Map(), SYNC_INSERT_CONTEXT);
  for (const error of result.error) {
    if (error.status !== 409 || !error.documentInDb) throw writeFailure(collection, error);
    held.set(error.documentId, error.documentInDb as Stored);
  }
  return held;
}

type WriteError = { documentId: string; status: number; documentInDb?: unknown };
const writeFailure = (collection: RxCollection, error: WriteError) => new Error(`replica write of ${collection.name}/${error.documentId} failed (status ${error.status})`);

/**
 * Inserts of states the caller owns (insertStates): RxDB takes each as the stored document instead
 * of copying it, and gives it its first revision in place (a row with a previous state must not be
 * written in this context: it would get a first revision too). Copying cost a 50,000-visit first
 * sync 50,000 objects of garbage.
 */
registerMutableWriteContext(SYNC_INSERT_CONTEXT);

async function bulkWrite(collection: RxCollection, states: readonly DocState[], current: Map<string, Stored>, context = SYNC_WRITE_CONTEXT): Promise<{ error: WriteError[] }> {
  // Where RxDB copies each document before it reaches the keyed storage (replica/keys.ts), the
  // replica keys are added here too, though that storage derives them again: then they are the
  // copy's own fields and it only writes over them. Added to V8's exact-size copy by Object.assign,
  // two more fields put it in dictionary mode: 1.6 KB a visit instead of 0.3, 65 MB of 50,000.
  const copied = context !== SYNC_INSERT_CONTEXT;
  const rows = [];
  for (const state of states) {
    const previous = current.get(state.id);
    const deleted = state._deleted === true;
    if (!previous && deleted) continue;
    const document = Object.assign(state, { _deleted: deleted, _attachments: {}, _meta: previous ? { ...previous._meta } : { lwt: 0 }, _rev: previous?._rev ?? '' }, copied ? replicaKeysOf(collection.name, state) : null);
    rows.push(previous ? { previous, document } : { document });
  }
  if (!rows.length) return { error: [] };
  return (await collection.storageInstance.bulkWrite(rows as never, context)) as { error: WriteError[] };
}
