import type { Queryable } from '../../storage/db.js';
import { logConflicts } from '../../storage/sync-log.js';
import type { OperationContext } from '../context.js';
import { newId } from '../ids.js';
import type { SyncCollection } from './collections.js';
import { toDocument, type Doc } from './doc.js';
import { deviceCopyDiffers, type Clash } from './merge.js';
import type { PushRun, RowResult } from './push-run.js';

/**
 * Inserts and updates of a push, written together in two statements when flushed (at the end,
 * before a row comes round to a document again, or after each row on the careful pass). Flushing
 * returns each row's result: written, its new server state, the stored state as its answer when
 * that differs from what the device pushed, and the clashes its merge overwrote.
 */
interface Pending {
  doc: Doc;
  /** What the device pushed. */
  sent: Doc;
  clashes: Clash[];
}

export class PendingWrites {
  private inserts = new Map<string, Pending>();
  private updates = new Map<string, Pending>();

  has(id: string): boolean {
    return this.inserts.has(id) || this.updates.has(id);
  }

  forget(id: string): void {
    this.inserts.delete(id);
    this.updates.delete(id);
  }

  insert(doc: Doc, sent: Doc): void {
    this.inserts.set(doc.id, { doc, sent, clashes: [] });
  }

  update(doc: Doc, sent: Doc, clashes: Clash[]): void {
    this.updates.set(doc.id, { doc, sent, clashes });
  }

  async flush({ ctx, tx, collection }: PushRun): Promise<RowResult[]> {
    const orgId = ctx.viewer.orgId;
    const inserts = [...this.inserts.values()];
    const updates = [...this.updates.values()];
    this.inserts = new Map();
    this.updates = new Map();
    if (!inserts.length && !updates.length) return [];
    const stored = [
      ...(await collection.table.insertMany(tx, orgId, inserts.map((w) => w.doc))),
      ...(await collection.table.updateMany(tx, orgId, updates.map((w) => w.doc))),
    ] as Doc[];
    const pending = new Map([...inserts, ...updates].map((w) => [w.doc.id, w]));
    return stored.map((record) => {
      const { sent, clashes } = pending.get(record.id)!;
      return {
        id: record.id,
        written: true,
        master: { record, deleted: false },
        ...(deviceCopyDiffers(collection.resource, record, sent) ? { answer: toDocument(record, false) } : {}),
        // Answered with the stored state, or sent exactly as stored: the device holds it either way.
        deviceHolds: true,
        clashes,
      };
    });
  }
}

/** Writes clashes to the conflict log: the value a merge kept, the one it lost, and why. */
export async function logClashes(ctx: OperationContext, tx: Queryable, collection: SyncCollection, clashes: { documentId: string; clash: Clash }[]): Promise<void> {
  await logConflicts(
    tx,
    ctx.viewer.orgId,
    clashes.map(({ documentId, clash }) => ({
      id: newId(),
      collection: collection.name,
      documentId,
      field: clash.field,
      keptValue: clash.kept,
      lostValue: clash.lost,
      rule: clash.rule,
      pushedBy: ctx.viewer.userId,
    })),
  );
}
