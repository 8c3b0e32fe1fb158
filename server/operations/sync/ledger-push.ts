import { inventoryItems, inventoryLocations } from '../../storage/inventory.js';
import { applyStockMovement } from '../../storage/stock-ledger.js';
import { toDocument } from './documents.js';
import { deviceCopyDiffers, differsForDevice, type Doc } from './merge.js';
import { rowId, type PushRun, type Row } from './push-run.js';

/**
 * Stock movements are insert-only: applied to the ledger once, in the transaction that updates
 * the location's level and the item's total; edits and deletes are refused.
 */
export async function applyMovement(run: PushRun, row: Row, doc: Doc, deleted: boolean, refuse: (reason: string) => Promise<void>): Promise<void> {
  const { resource } = run.collection;
  const master = run.masters.get(rowId(row));
  if (master) {
    // The same movement again (a retry): applied once, answered with what was stored.
    if (deleted || differsForDevice(resource, master.record, doc)) return refuse('stock movements cannot be changed or deleted once recorded');
    if (deviceCopyDiffers(resource, master.record, row.newDocumentState)) run.outcome.conflicts.push(toDocument(master.record, false));
    return;
  }
  if (deleted) return;
  const orgId = run.ctx.viewer.orgId;
  if (!(await inventoryItems.findById(run.tx, orgId, doc.itemId as string))) return refuse(`item ${String(doc.itemId)} was not found`);
  for (const location of [doc.locationId, doc.toLocationId].filter((l) => l != null)) {
    if (!(await inventoryLocations.findById(run.tx, orgId, location as string))) return refuse(`location ${String(location)} was not found`);
  }
  if (doc.delta === 0) return refuse('a stock movement must change the quantity (delta is 0)');
  const { movement, applied } = await applyStockMovement(run.tx, orgId, {
    id: doc.id as string,
    itemId: doc.itemId as string,
    locationId: doc.locationId as string,
    toLocationId: (doc.toLocationId as string | null) ?? null,
    delta: doc.delta as number,
    reason: doc.reason as never,
    serviceId: (doc.serviceId as string | null) ?? null,
    note: (doc.note as string | null) ?? null,
    createdById: run.ctx.viewer.userId,
  });
  if (applied) run.outcome.written++;
  run.masters.set(movement.id, { record: movement as unknown as Doc, deleted: false });
  if (deviceCopyDiffers(resource, movement as unknown as Doc, row.newDocumentState)) run.outcome.conflicts.push(toDocument(movement, false));
}
