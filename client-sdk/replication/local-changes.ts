import type { RxCollection } from 'rxdb';
import { badInput, notFound } from '../errors.js';
import { Outbox, outboxKey } from './outbox.js';
import { readStored, stateOf, writeStates, type DocState } from './replica-store.js';
import type { WriteLock } from './write-lock.js';

/**
 * The one way the app changes synced documents. Each change records its outbox entry (first)
 * and writes the document (second), under the write lock the sync engine also takes: a client
 * killed between the two leaves an entry whose document is unchanged, which the next push drops.
 * The first change to a document keeps the server state it was made on as the entry's base.
 */
export class LocalChanges {
  constructor(
    private readonly collection: (name: string) => RxCollection,
    private readonly outbox: Outbox,
    private readonly lock: WriteLock,
    /** Told after every change (the engine pushes soon). */
    private readonly changed: (collection: string) => void,
  ) {}

  /** Adds a document made on the device. */
  insert(collection: string, doc: DocState): Promise<DocState> {
    return this.change(collection, doc.id, (current) => {
      if (current && !current._deleted) throw badInput(`${collection} ${doc.id} exists already`);
      return { ...doc, _deleted: false };
    });
  }

  /** Changes a document the replica holds; `next` receives its current state. */
  update(collection: string, id: string, next: (current: DocState) => DocState): Promise<DocState> {
    return this.change(collection, id, (current) => {
      if (!current || current._deleted) throw notFound(collection, id);
      return { ...next(current), id, _deleted: false };
    });
  }

  /** Deletes a document (the tombstone replicates). */
  remove(collection: string, id: string): Promise<DocState> {
    return this.change(collection, id, (current) => {
      if (!current || current._deleted) throw notFound(collection, id);
      return { ...current, _deleted: true };
    });
  }

  private change(name: string, id: string, next: (current: DocState | null) => DocState): Promise<DocState> {
    return this.lock.run(async () => {
      const collection = this.collection(name);
      const stored = await readStored(collection, [id]);
      const current = stored.has(id) ? stateOf(stored.get(id)!) : null;
      const state = next(current);
      const key = outboxKey(name, id);
      const entry = (await this.outbox.get([key])).get(key);
      const now = new Date().toISOString();
      await this.outbox.save([
        {
          key,
          collectionName: name,
          docId: id,
          base: entry ? entry.base : current && !current._deleted ? current : null,
          changeId: crypto.randomUUID(),
          sent: entry?.sent ?? [],
          updatedAt: entry?.updatedAt ?? now,
        },
      ]);
      await writeStates(collection, [{ ...state }], stored); // a copy: `state` goes back to the app
      this.changed(name);
      return state;
    });
  }
}
