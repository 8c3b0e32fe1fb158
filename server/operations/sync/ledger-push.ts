import { inventoryItems, inventoryLocations } from '../../storage/inventory.js';
import type { StockMovement } from '../../../shared/index.js';
import { applyStockMovement } from '../../storage/stock-ledger.js';
import { toDocument, type Doc } from './doc.js';
import { deviceCopyDiffers, differsForDevice } from './merge.js';
import { rowId, type PushRun, type Row, type RowResult } from './push-run.js';

/**
 * Stock movements are insert-only: applied to the ledger once, in the transaction that updates
 * the location's level and the item's total; edits and deletes are refused.
 */
export async function applyMovement(run: PushRun, row: Row, doc: Doc, deleted: boolean, refuse: (reason: string) => Promise<RowResult>): Promise<RowResult> {
  const { resource } = run.collection;
  const id = rowId(row);
  const master = run.masters.get(id);
  if (master) {
    // The same movement again (a retry): applied once, answered with what was stored.
    if (deleted || differsForDevice(resource, master.record, doc)) return refuse('stock movements cannot be changed or deleted once recorded');
    return deviceCopyDiffers(resource, master.record, row.newDocumentState) ? { id, answer: toDocument(master.record, false) } : { id };
  }
  if (deleted) return { id };
  // parseDocument checked `doc` against the stock movement resource: these fields are as declared.
  const sent = doc as Doc & Pick<StockMovement, 'itemId' | 'locationId' | 'delta' | 'reason'> & Partial<Pick<StockMovement, 'toLocationId' | 'serviceId' | 'note' | 'dose'>>;
  const orgId = run.ctx.viewer.orgId;
  if (!(await inventoryItems.findById(run.tx, orgId, sent.itemId))) return refuse(`item ${sent.itemId} was not found`);
  for (const location of [sent.locationId, sent.toLocationId ?? null].filter((l) => l !== null)) {
    if (!(await inventoryLocations.findById(run.tx, orgId, location))) return refuse(`location ${location} was not found`);
  }
  if (sent.delta === 0) return refuse('a stock movement must change the quantity (delta is 0)');
  const { movement, applied } = await applyStockMovement(run.tx, orgId, {
    id: sent.id,
    itemId: sent.itemId,
    locationId: sent.locationId,
    toLocationId: sent.toLocationId ?? null,
    delta: sent.delta,
    reason: sent.reason,
    serviceId: sent.serviceId ?? null,
    note: sent.note ?? null,
    dose: sent.dose ?? null,
    createdById: run.ctx.viewer.userId,
  });
  // Its levels and item changed too (other rows of the feed): `deviceHolds` stays unset, so the
  // device pulls them.
  return {
    id,
    written: applied,
    master: { record: movement, deleted: false },
    ...(deviceCopyDiffers(resource, movement, row.newDocumentState) ? { answer: toDocument(movement, false) } : {}),
  };
}
