import type { BulkWriteRow, RxCollection, RxDocumentData, RxStorageBulkWriteResponse } from 'rxdb';
import { describeIssues, deviceMayWrite, isReplicaKey, recordValidator, replicatedResources, type CollectionName, type DeviceWrite, type DocumentOf } from '../../shared/index.js';
import { badInput, notFound } from '../errors.js';
import { documentOf } from '../replica/database.js';
import { PendingChanges, pendingKey } from './pending-changes.js';
import { type PendingChange } from '../replica/local-collections.js';
import { readStored, stateOf, writeStates, type DocState } from './replica-store.js';
import type { WriteLock } from './write-lock.js';

/**
 * Every change the device makes to a synced document becomes an pending change here, whether it
 * comes from the SDK's actions (`insert`, `update`, `remove`) or from the app writing to
 * `client.db` the RxDB way (`captured`, called by the storage wrapper in replica/capture.ts). One
 * path, so both are validated the same, pushed the same and counted the same.
 *
 * Each change records its pending change (first) and writes the document (second), under the write
 * lock the sync engine also takes: a client killed between the two leaves an entry whose document
 * is unchanged, which the next push sends as it is stored (harmless). The first change to a
 * document keeps the server state it was made on as the entry's base.
 */
/** What an insert gives: the document's own fields (the timestamps are stamped here, the server's own fields on push). */
export type NewDocument<C extends CollectionName> = Partial<DocumentOf<C>> & { id: string };

export interface Change {
  /** The stored state before the change (null: none, or never stored). */
  current: DocState | null;
  /** The state the change writes; stamped (updatedAt, createdAt) in place. */
  state: DocState;
}

const resourceOf = new Map<string, (typeof replicatedResources)[number]>(replicatedResources.map((r) => [r.collection, r]));
const WHAT_INSTEAD: Record<string, string> = {
  stockLevels: 'levels follow from stock movements: use useStock or transferStock',
  stockMovements: 'a movement is never changed: record a new one with useStock or transferStock',
  payments: 'a payment is never changed: take another with takePayment (the office reverses one)',
};

/** Throws when a device may not make this kind of change to the collection's documents at all (shared/sync/rules.ts). */
function assertDeviceMay(kind: DeviceWrite, name: string, action: string): void {
  if (deviceMayWrite(name, kind)) return;
  const verb = { insert: 'added', change: 'changed', delete: 'deleted' }[kind];
  throw badInput(`${action}: ${name} documents cannot be ${verb} on a device${WHAT_INSTEAD[name] ? `; ${WHAT_INSTEAD[name]}` : ''}`);
}

export class LocalChanges {
  constructor(
    private readonly collection: (name: string) => RxCollection,
    private readonly pending: PendingChanges,
    private readonly lock: WriteLock,
    /** Told after every change (the engine pushes soon). */
    private readonly changed: (collection: string) => void,
  ) {}

  /** Adds a document made on the device. `action` names the change in errors. */
  async insert<C extends CollectionName>(collection: C, doc: NewDocument<C>, action: string): Promise<DocumentOf<C>> {
    assertDeviceMay('insert', collection, action);
    const state = await this.change(collection, doc.id, action, (current) => {
      if (current && !current._deleted) throw badInput(`${collection} ${doc.id} exists already`);
      return { ...doc, _deleted: false };
    });
    return documentOf(collection, state);
  }

  /** Changes a document the replica holds: `next` receives it and returns the fields that change. */
  async update<C extends CollectionName>(collection: C, id: string, action: string, next: (current: DocumentOf<C>) => Partial<DocumentOf<C>>): Promise<DocumentOf<C>> {
    assertDeviceMay('change', collection, action);
    const state = await this.change(collection, id, action, (current) => {
      if (!current || current._deleted) throw notFound(collection, id);
      return { ...current, ...next(documentOf(collection, current)), id, _deleted: false };
    });
    return documentOf(collection, state);
  }

  /** Deletes a document (the tombstone replicates). */
  async remove(collection: CollectionName, id: string, action: string): Promise<void> {
    assertDeviceMay('delete', collection, action);
    await this.change(collection, id, action, (current) => {
      if (!current || current._deleted) throw notFound(collection, id);
      return { ...current, _deleted: true };
    });
  }

  /**
   * The app's own write through RxDB (insert, upsert, patch, modify, remove and their bulk and
   * incremental forms all end in one storage write): the rows that will take effect are checked
   * and recorded as the actions' changes are, then `write` stores them. Rows RxDB will see
   * conflict (an insert over a stored document, an update from an outdated revision) are passed
   * on unrecorded; RxDB resolves them and writes again.
   */
  captured(
    name: string,
    rows: BulkWriteRow<DocState>[],
    context: string,
    write: () => Promise<RxStorageBulkWriteResponse<DocState>>,
  ): Promise<RxStorageBulkWriteResponse<DocState>> {
    return this.lock.run(async () => {
      const stored = await readStored(this.collection(name), rows.map((r) => r.document.id));
      const changes: Change[] = [];
      for (const row of rows) {
        const current = stored.get(row.document.id);
        if (takesEffect(row, current)) changes.push({ current: current ? stateOf(current, name) : null, state: row.document });
      }
      await this.record(name, changes, `${verbOf(context)} ${name}`);
      const result = await write();
      if (changes.length) this.changed(name);
      return result;
    });
  }

  private change(name: string, id: string, action: string, next: (current: DocState | null) => DocState): Promise<DocState> {
    return this.lock.run(async () => {
      const collection = this.collection(name);
      const stored = await readStored(collection, [id]);
      const current = stored.has(id) ? stateOf(stored.get(id)!, name) : null;
      const state = next(current);
      await this.record(name, [{ current, state }], action);
      await writeStates(collection, [{ ...state }], stored); // a copy: `state` goes back to the app
      this.changed(name);
      return state;
    });
  }

  /**
   * Checks the changes (the device may make them; each new state is a valid document), stamps
   * them, and saves their pending changes. Throws before anything is written.
   */
  private async record(name: string, changes: Change[], action: string): Promise<void> {
    if (!changes.length) return;
    const resource = resourceOf.get(name)!;
    const now = new Date().toISOString();
    for (const { current, state } of changes) {
      assertDeviceMay(!current ? 'insert' : state._deleted ? 'delete' : 'change', name, action);
      if (state._deleted) continue;
      state.createdAt = current?.createdAt ?? (typeof state.createdAt === 'string' ? state.createdAt : now);
      state.updatedAt = now;
      const result = recordValidator(resource).safeParse(fieldsOf(name, state));
      if (!result.success) throw badInput(`${action}: ${describeIssues(result.error.issues, { limit: Infinity })}`);
    }
    const entries = await this.pending.get(changes.map((c) => pendingKey(name, c.state.id)));
    const save: PendingChange[] = [];
    const forget: string[] = [];
    for (const change of changes) {
      const entry = entries.get(pendingKey(name, change.state.id));
      // Made here and deleted before the server saw it: nothing is left to send.
      if (change.state._deleted && entry && entry.base === null && !entry.sent.length) forget.push(entry.key);
      else save.push(entryFor(name, change, entry, now));
    }
    await this.pending.save(save);
    await this.pending.remove(forget);
  }
}

function entryFor(name: string, { current, state }: Change, entry: PendingChange | undefined, now: string): PendingChange {
  return {
    key: pendingKey(name, state.id),
    collectionName: name,
    docId: state.id,
    base: entry ? entry.base : current && !current._deleted ? current : null,
    changeId: crypto.randomUUID(),
    sent: entry?.sent ?? [],
    updatedAt: entry?.updatedAt ?? now,
    refused: null, // a new change may well be acceptable
  };
}

/** A document's own fields: no RxDB bookkeeping, no `_deleted`. */
/** The document's own fields: no bookkeeping, no replica keys (a document read back from the replica has them). */
function fieldsOf(collection: string, state: DocState): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) if (!key.startsWith('_') && !isReplicaKey(collection, key)) fields[key] = value;
  return fields;
}

/** Whether the storage will take the row: an insert of a new id, or an update from the stored revision. */
function takesEffect(row: BulkWriteRow<DocState>, stored: RxDocumentData<DocState> | undefined): boolean {
  return row.previous ? stored?._rev === row.previous._rev : !stored;
}

/** RxDB's write contexts, as an error names the operation. */
function verbOf(context: string): string {
  if (context.includes('insert')) return 'insert into';
  if (context.includes('remove')) return 'remove from';
  return 'write to';
}
