import type { StockMovement } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { inventoryItems, inventoryLocations } from '../../storage/inventory.js';
import { applyStockMovement } from '../../storage/stock-ledger.js';
import type { OperationContext } from '../context.js';
import type { Doc } from './doc.js';

/**
 * How each ledger collection records a new entry pushed by a device: once, by its id, with
 * whatever the entry changes elsewhere in the same transaction. The push (ledger-push.ts) calls
 * it only for an id it has not stored; a retry of a stored one never reaches here.
 */
export type LedgerRecord = { entry: Doc; applied: boolean } | { refused: string };

/** A stock movement: the location's level and the item's total move with it. */
export async function recordMovement(ctx: OperationContext, tx: Queryable, doc: Doc): Promise<LedgerRecord> {
  // parseDocument checked `doc` against the stock movement resource: these fields are as declared.
  const sent = doc as Doc & Pick<StockMovement, 'itemId' | 'locationId' | 'delta' | 'reason'> & Partial<Pick<StockMovement, 'toLocationId' | 'serviceId' | 'note' | 'dose'>>;
  const orgId = ctx.viewer.orgId;
  if (!(await inventoryItems.findById(tx, orgId, sent.itemId))) return { refused: `item ${sent.itemId} was not found` };
  for (const location of [sent.locationId, sent.toLocationId ?? null].filter((l) => l !== null)) {
    if (!(await inventoryLocations.findById(tx, orgId, location))) return { refused: `location ${location} was not found` };
  }
  if (sent.delta === 0) return { refused: 'a stock movement must change the quantity (delta is 0)' };
  const { movement, applied } = await applyStockMovement(tx, orgId, {
    id: sent.id,
    itemId: sent.itemId,
    locationId: sent.locationId,
    toLocationId: sent.toLocationId ?? null,
    delta: sent.delta,
    reason: sent.reason,
    serviceId: sent.serviceId ?? null,
    note: sent.note ?? null,
    dose: sent.dose ?? null,
    createdById: ctx.viewer.userId,
  });
  return { entry: movement, applied };
}
