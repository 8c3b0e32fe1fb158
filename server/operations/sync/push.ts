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
import { differsForDevice, mergeDocument, type Clash, type Doc } from './merge.js';

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
  const outcome: PushOutcome = { conflicts: [], refused: [], quarantined: [], written: 0 };
  if (!rows.length) return outcome;
  await ctx.db.transaction(async (tx) => {
    const ids = [...new Set(rows.map((r) => r.newDocumentState.id as string))];
    const masters = await lockDocuments<Doc>(tx, collection.table, ctx.viewer.orgId, ids);
    for (const row of rows) {
      await tx.query('savepoint push_row');
      try {
        await applyRow(ctx, tx, collection, row, masters, outcome);
        await tx.query('release savepoint push_row');
      } catch (error) {
        await tx.query('rollback to savepoint push_row');
        if (!isAppError(error)) throw error;
        await refuseOrQuarantine(ctx, tx, collection, row, masters.get(row.newDocumentState.id as string), error.message, outcome);
      }
    }
  });
  return outcome;
}

async function applyRow(
  ctx: OperationContext,
  tx: Queryable,
  collection: SyncCollection,
  row: Row,
  masters: Map<string, Master>,
  outcome: PushOutcome,
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
    const prepared = collection.onInsert ? await collection.onInsert(ctx, tx, parsed.doc) : parsed.doc;
    const inserted = (await collection.table.insert(tx, ctx.viewer.orgId, prepared as Doc & { id: string })) as Doc;
    masters.set(id, { record: inserted, deleted: false });
    outcome.written++;
    if (differsForDevice(collection.resource, inserted, parsed.doc)) outcome.conflicts.push(toDocument(inserted, false));
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
  let current = master.record;
  if (differsForDevice(collection.resource, merged, master.record)) {
    const completed = collection.onUpdate ? await collection.onUpdate(ctx, tx, merged, master.record) : merged;
    current = (await collection.table.update(tx, ctx.viewer.orgId, id, changedFields(completed, master.record))) as Doc;
    masters.set(id, { record: current, deleted: false });
    outcome.written++;
  }
  await logClashes(ctx, tx, collection, id, clashes);
  if (differsForDevice(collection.resource, current, parsed.doc)) outcome.conflicts.push(toDocument(current, false));
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
  if (master) {
    const same = !deleted && !differsForDevice(syncCollection('stockMovements').resource, master.record, doc);
    return same ? undefined : refuse('stock movements cannot be changed or deleted once recorded');
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
  void row;
  void movement;
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

function changedFields(next: Doc, current: Doc): Doc {
  return Object.fromEntries(
    Object.entries(next).filter(([k, v]) => k !== 'createdAt' && k !== 'updatedAt' && JSON.stringify(v ?? null) !== JSON.stringify(current[k] ?? null)),
  );
}
