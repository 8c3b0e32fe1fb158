import { z } from 'zod';
import { isAppError } from '../../../shared/index.js';
import { lockDocuments, setDeleted } from '../../storage/change-feed.js';
import type { Queryable } from '../../storage/db.js';
import { applyStockMovement } from '../../storage/stock-ledger.js';
import { inventoryItems, inventoryLocations } from '../../storage/inventory.js';
import { logConflicts, quarantine } from '../../storage/sync-log.js';
import type { OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { syncCollection, type SyncCollection } from './collections.js';
import { parseDocument, toDocument } from './documents.js';
import { deviceCopyDiffers, differsForDevice, mergeDocument, type Clash, type Doc } from './merge.js';
import { References } from './references.js';

/**
 * Push: apply a batch of changed documents, each merged with the server's state, in one
 * transaction (each row behind its own savepoint, so one bad row never blocks the rest).
 *
 * The answer lists the current server state of every row the device must adopt: rows that
 * merged into something other than what was sent, rows refused (read-only collection, wrong
 * role), and rows quarantined (answered with a tombstone so the device stops retrying). A retried
 * push that was already applied changes nothing and is not a conflict.
 */
export const MAX_PUSH_ROWS = 2000;

const PushRows = z
  .array(
    z.object({
      assumedMasterState: z.record(z.string(), z.unknown()).nullish(),
      newDocumentState: z.record(z.string(), z.unknown()).refine((d) => typeof d.id === 'string' && d.id.length > 0, 'needs an id'),
    }),
  )
  .max(MAX_PUSH_ROWS);

export interface Refusal {
  id: string;
  reason: string;
}

export interface PushOutcome {
  conflicts: Doc[];
  refused: Refusal[];
  quarantined: Refusal[];
  /** Number of rows written. */
  written: number;
}

type Row = z.output<typeof PushRows>[number];
type Master = { record: Doc; deleted: boolean };

export async function push(ctx: OperationContext, name: string, raw: unknown): Promise<PushOutcome> {
  const collection = syncCollection(name);
  const rows = parseInput(PushRows, raw);
  if (!rows.length) return { conflicts: [], refused: [], quarantined: [], written: 0 };
  try {
    return await ctx.db.transaction((tx) => applyBatch(ctx, tx, collection, rows, false));
  } catch {
    // A database error in the fast path (writes batched, no savepoints) rolled everything back.
    // Redo row by row behind savepoints, so the one bad row is refused and the rest apply.
    return ctx.db.transaction((tx) => applyBatch(ctx, tx, collection, rows, true));
  }
}

async function applyBatch(
  ctx: OperationContext,
  tx: Queryable,
  collection: SyncCollection,
  rows: Row[],
  careful: boolean,
): Promise<PushOutcome> {
  const outcome: PushOutcome = { conflicts: [], refused: [], quarantined: [], written: 0 };
  const ids = [...new Set(rows.map((r) => r.newDocumentState.id as string))];
  const masters = await lockDocuments<Doc>(tx, collection.table, ctx.viewer.orgId, ids);
  const refs = new References(tx, ctx.viewer.orgId);
  for (const ref of collection.references ?? []) {
    await refs.prefetch(ref.table, rows.map((r) => r.newDocumentState[ref.field]));
  }
  const writes = new PendingWrites(collection);
  for (const row of rows) {
    const id = row.newDocumentState.id as string;
    if (writes.has(id)) await writes.flush(ctx, tx, masters, outcome);
    if (careful) await tx.query('savepoint push_row');
    try {
      await applyRow(ctx, tx, collection, row, masters, outcome, writes, refs);
      if (careful) {
        await writes.flush(ctx, tx, masters, outcome);
        await tx.query('release savepoint push_row');
      }
    } catch (error) {
      writes.forget(id);
      // In the fast path a database error has aborted the transaction: start over carefully.
      if (!careful && (!isAppError(error) || error.details?.sqlstate)) throw error;
      if (careful) await tx.query('rollback to savepoint push_row');
      const reason = isAppError(error) ? error.message : `could not be stored (${(error as Error).message})`;
      await refuseOrQuarantine(ctx, tx, collection, row, masters.get(id), reason, outcome);
    }
  }
  await writes.flush(ctx, tx, masters, outcome);
  return outcome;
}

/**
 * Inserts and updates of a push, written together in two statements at the end (or when a
 * document comes round again), then answered: a device is sent the stored state when it differs
 * from what it pushed.
 */
class PendingWrites {
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
    this.inserts.set(doc.id as string, { doc, sent });
  }

  update(doc: Doc, sent: Doc, clashes: Clash[]): void {
    this.updates.set(doc.id as string, { doc, sent, clashes });
  }

  async flush(ctx: OperationContext, tx: Queryable, masters: Map<string, Master>, outcome: PushOutcome): Promise<void> {
    const { collection } = this;
    const orgId = ctx.viewer.orgId;
    const inserts = [...this.inserts.values()];
    const updates = [...this.updates.values()];
    this.inserts = new Map();
    this.updates = new Map();
    const stored = [
      ...(await collection.table.insertMany(tx, orgId, inserts.map((w) => w.doc as Doc & { id: string }))),
      ...(await collection.table.updateMany(tx, orgId, updates.map((w) => w.doc as Doc & { id: string }))),
    ] as Doc[];
    const sentById = new Map([...inserts, ...updates].map((w) => [w.doc.id as string, w.sent]));
    for (const record of stored) {
      masters.set(record.id as string, { record, deleted: false });
      outcome.written++;
      if (deviceCopyDiffers(collection.resource, record, sentById.get(record.id as string)!)) {
        outcome.conflicts.push(toDocument(record, false));
      }
    }
    await logConflicts(
      tx,
      orgId,
      updates.flatMap((w) =>
        w.clashes.map((c) => ({
          id: newId(),
          collection: collection.name,
          documentId: w.doc.id as string,
          field: c.field,
          keptValue: c.kept,
          lostValue: c.lost,
          rule: c.rule,
          pushedBy: ctx.viewer.userId,
        })),
      ),
    );
  }
}

async function applyRow(
  ctx: OperationContext,
  tx: Queryable,
  collection: SyncCollection,
  row: Row,
  masters: Map<string, Master>,
  outcome: PushOutcome,
  writes: PendingWrites,
  refs: References,
): Promise<void> {
  const id = row.newDocumentState.id as string;
  const master = masters.get(id);
  const refuse = (reason: string) => refuseOrQuarantine(ctx, tx, collection, row, master, reason, outcome);
  if (collection.kind === 'readonly' || !collection.writers.includes(ctx.viewer.role)) {
    return refuse(`${collection.name} is read-only for ${ctx.viewer.role}`);
  }
  const parsed = parseDocument(collection.resource, row.newDocumentState);
  if (!parsed.ok) return refuse(parsed.reason);
  if (collection.kind === 'ledger') return applyMovement(ctx, tx, row, parsed.doc, parsed.deleted, master, outcome, refuse);

  if (!master) {
    if (parsed.deleted) return; // created and deleted offline: nothing to keep
    const prepared = collection.onInsert ? await collection.onInsert(ctx, tx, parsed.doc, refs) : parsed.doc;
    writes.insert(withDefaults(collection, prepared), row.newDocumentState);
    return;
  }
  const reason = collection.refuse?.(ctx, master.record);
  if (reason) return refuse(reason);
  if (master.deleted) {
    if (!parsed.deleted) outcome.conflicts.push(toDocument(master.record, true));
    return;
  }
  if (parsed.deleted) {
    await setDeleted(tx, collection.table, ctx.viewer.orgId, id, true);
    masters.set(id, { ...master, deleted: true });
    outcome.written++;
    return;
  }
  const base = row.assumedMasterState ? (parseDocument(collection.resource, row.assumedMasterState) as { doc?: Doc }).doc ?? null : null;
  const { merged, clashes } = mergeDocument(collection.resource, base, parsed.doc, master.record, ctx.viewer.role);
  if (differsForDevice(collection.resource, merged, master.record)) {
    const completed = collection.onUpdate ? await collection.onUpdate(ctx, tx, merged, master.record) : merged;
    writes.update(completed, row.newDocumentState, clashes);
    return;
  }
  await logClashes(ctx, tx, collection, id, clashes);
  if (deviceCopyDiffers(collection.resource, master.record, row.newDocumentState)) outcome.conflicts.push(toDocument(master.record, false));
}

/** Nullable fields a device left out are stored as null (a bulk insert names every column). */
function withDefaults(collection: SyncCollection, doc: Doc): Doc {
  const full: Doc = {};
  for (const [field, { meta }] of Object.entries(collection.resource.fields)) {
    if (field in doc) full[field] = doc[field];
    else if (meta.nullable) full[field] = null;
  }
  return full;
}

/** Stock movements are insert-only: applied to the ledger once; edits and deletes are refused. */
async function applyMovement(
  ctx: OperationContext,
  tx: Queryable,
  row: Row,
  doc: Doc,
  deleted: boolean,
  master: Master | undefined,
  outcome: PushOutcome,
  refuse: (reason: string) => Promise<void>,
): Promise<void> {
  const resource = syncCollection('stockMovements').resource;
  if (master) {
    // The same movement again (a retry): applied once, answered with what was stored.
    if (deleted || differsForDevice(resource, master.record, doc)) return refuse('stock movements cannot be changed or deleted once recorded');
    if (deviceCopyDiffers(resource, master.record, row.newDocumentState)) outcome.conflicts.push(toDocument(master.record, false));
    return;
  }
  if (deleted) return;
  const orgId = ctx.viewer.orgId;
  if (!(await inventoryItems.findById(tx, orgId, doc.itemId as string))) return refuse(`item ${String(doc.itemId)} was not found`);
  for (const location of [doc.locationId, doc.toLocationId].filter((l) => l != null)) {
    if (!(await inventoryLocations.findById(tx, orgId, location as string))) return refuse(`location ${String(location)} was not found`);
  }
  if (doc.delta === 0) return refuse('a stock movement must change the quantity (delta is 0)');
  const { movement, applied } = await applyStockMovement(tx, orgId, {
    id: doc.id as string,
    itemId: doc.itemId as string,
    locationId: doc.locationId as string,
    toLocationId: (doc.toLocationId as string | null) ?? null,
    delta: doc.delta as number,
    reason: doc.reason as never,
    serviceId: (doc.serviceId as string | null) ?? null,
    note: (doc.note as string | null) ?? null,
    createdById: ctx.viewer.userId,
  });
  if (applied) outcome.written++;
  if (deviceCopyDiffers(resource, movement as unknown as Doc, row.newDocumentState)) outcome.conflicts.push(toDocument(movement, false));
}

/**
 * A row that cannot be applied. With a server state the device is answered with it (and
 * converges); without one, the document is quarantined and answered with a tombstone.
 */
async function refuseOrQuarantine(
  ctx: OperationContext,
  tx: Queryable,
  collection: SyncCollection,
  row: Row,
  master: Master | undefined,
  reason: string,
  outcome: PushOutcome,
): Promise<void> {
  const id = row.newDocumentState.id as string;
  if (master) {
    outcome.refused.push({ id, reason });
    outcome.conflicts.push(toDocument(master.record, master.deleted));
    return;
  }
  await quarantine(tx, ctx.viewer.orgId, {
    id: newId(),
    collection: collection.name,
    documentId: id,
    document: row.newDocumentState,
    reason,
    pushedBy: ctx.viewer.userId,
  });
  outcome.quarantined.push({ id, reason });
  outcome.conflicts.push({ ...row.newDocumentState, _deleted: true });
}

async function logClashes(ctx: OperationContext, tx: Queryable, collection: SyncCollection, documentId: string, clashes: Clash[]) {
  await logConflicts(
    tx,
    ctx.viewer.orgId,
    clashes.map((c) => ({
      id: newId(),
      collection: collection.name,
      documentId,
      field: c.field,
      keptValue: c.kept,
      lostValue: c.lost,
      rule: c.rule,
      pushedBy: ctx.viewer.userId,
    })),
  );
}
