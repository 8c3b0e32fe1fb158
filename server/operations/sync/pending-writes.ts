import type { Queryable } from '../../storage/db.js';
import { logConflicts } from '../../storage/sync-log.js';
import { newId } from '../ids.js';
import type { SyncCollection } from './collections.js';
import { toDocument } from './documents.js';
import { deviceCopyDiffers, type Clash, type Doc } from './merge.js';
import type { PushRun } from './push-run.js';

/**
 * Inserts and updates of a push, written together in two statements at the end (or when a
 * document comes round again), then answered: a device is sent the stored state when it differs
 * from what it pushed. The clashes of each update go to the conflict log in the same transaction.
 */
export class PendingWrites {
  private inserts = new Map<string, { doc: Doc; sent: Doc }>();
  private updates = new Map<string, { doc: Doc; sent: Doc; clashes: Clash[] }>();

  constructor(private readonly collection: SyncCollection) {}

  has(id: string): boolean {
    return this.inserts.has(id) || this.updates.has(id);
  }

  forget(id: string): void {
    this.inserts.delete(id);
    this.updates.delete(id);
  }

  insert(doc: Doc, sent: Doc): void {
    this.inserts.set(doc.id, { doc, sent });
  }

  update(doc: Doc, sent: Doc, clashes: Clash[]): void {
    this.updates.set(doc.id, { doc, sent, clashes });
  }

  async flush(run: PushRun): Promise<void> {
    const { collection } = this;
    const orgId = run.ctx.viewer.orgId;
    const inserts = [...this.inserts.values()];
    const updates = [...this.updates.values()];
    this.inserts = new Map();
    this.updates = new Map();
    const stored = [
      ...(await collection.table.insertMany(run.tx, orgId, inserts.map((w) => w.doc))),
      ...(await collection.table.updateMany(run.tx, orgId, updates.map((w) => w.doc))),
    ] as Doc[];
    const sentById = new Map([...inserts, ...updates].map((w) => [w.doc.id, w.sent]));
    for (const record of stored) {
      run.masters.set(record.id, { record, deleted: false });
      run.outcome.written++;
      if (deviceCopyDiffers(collection.resource, record, sentById.get(record.id)!)) {
        run.outcome.conflicts.push(toDocument(record, false));
      }
      // Answered with the stored state, or sent exactly as stored: the device holds it either way.
      run.deviceHolds.add(record.id);
    }
    await logClashes(run, updates.flatMap((w) => w.clashes.map((clash) => ({ documentId: w.doc.id, clash }))));
  }
}

/** Writes clashes to the conflict log: the value a merge kept, the one it lost, and why. */
export async function logClashes(run: PushRun, clashes: { documentId: string; clash: Clash }[], tx: Queryable = run.tx): Promise<void> {
  await logConflicts(
    tx,
    run.ctx.viewer.orgId,
    clashes.map(({ documentId, clash }) => ({
      id: newId(),
      collection: run.collection.name,
      documentId,
      field: clash.field,
      keptValue: clash.kept,
      lostValue: clash.lost,
      rule: clash.rule,
      pushedBy: run.ctx.viewer.userId,
    })),
  );
}
