import type { StockMovement, StockMovementReason } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { stockMovements } from './inventory.js';

/**
 * The stock ledger: immutable movements, applied exactly once to the per-location levels and the
 * item's total, in the caller's transaction. GraphQL adjustments and transfers, REST transfers and
 * movements pushed by devices all go through `applyStockMovement`.
 */
export interface MovementInput {
  id: string;
  itemId: string;
  locationId: string;
  /** For transfers: the location that receives `-delta`. */
  toLocationId?: string | null;
  delta: number;
  reason: StockMovementReason;
  serviceId?: string | null;
  note?: string | null;
  /** Set when the movement is a chemical dose (what was suggested, beside the delta used). */
  dose?: StockMovement['dose'];
  createdById?: string | null;
}

export interface AppliedMovement {
  movement: StockMovement;
  /** False when a movement with this id was already recorded (a retry): nothing changed. */
  applied: boolean;
}

export async function applyStockMovement(tx: Queryable, orgId: string, input: MovementInput): Promise<AppliedMovement> {
  const inserted = await stockMovements.insertIfAbsent(tx, orgId, {
    ...input,
    toLocationId: input.toLocationId ?? null,
    serviceId: input.serviceId ?? null,
    note: input.note ?? null,
    dose: input.dose ?? null,
    createdById: input.createdById ?? null,
  });
  if (!inserted) {
    const existing = await tx.query('select ' + stockMovements.selectList() + ' from stock_movements where org_id = $1 and id = $2', [orgId, input.id]);
    return { movement: stockMovements.toRecord(existing.rows[0]!), applied: false };
  }
  await addToLevel(tx, orgId, input.itemId, input.locationId, input.delta);
  if (input.toLocationId) {
    await addToLevel(tx, orgId, input.itemId, input.toLocationId, -input.delta);
  } else {
    await tx.query('update inventory_items set quantity = quantity + $3 where org_id = $1 and id = $2', [
      orgId,
      input.itemId,
      input.delta,
    ]);
  }
  return { movement: inserted, applied: true };
}

/** A level's id is derived from item and location, so every replica names it the same way. */
export function stockLevelId(itemId: string, locationId: string): string {
  return `${itemId}@${locationId}`;
}

async function addToLevel(tx: Queryable, orgId: string, itemId: string, locationId: string, delta: number) {
  await tx.query(
    `insert into stock_levels (org_id, id, item_id, location_id, quantity) values ($1, $2, $3, $4, $5)
     on conflict (org_id, item_id, location_id) do update set quantity = stock_levels.quantity + excluded.quantity`,
    [orgId, stockLevelId(itemId, locationId), itemId, locationId, delta],
  );
}

/** The quantity at one location, locked until the transaction ends (0 when never stocked). */
export async function lockLevel(tx: Queryable, orgId: string, itemId: string, locationId: string): Promise<number> {
  const { rows } = await tx.query<{ quantity: number }>(
    'select quantity from stock_levels where org_id = $1 and item_id = $2 and location_id = $3 for update',
    [orgId, itemId, locationId],
  );
  return rows[0]?.quantity ?? 0;
}

/** Locks an item row so concurrent adjustments of its total apply one after the other. */
export async function lockItemTotal(tx: Queryable, orgId: string, itemId: string): Promise<number | null> {
  const { rows } = await tx.query<{ quantity: number }>(
    'select quantity from inventory_items where org_id = $1 and id = $2 and not _deleted for update',
    [orgId, itemId],
  );
  return rows[0]?.quantity ?? null;
}

export async function movementHistory(q: Queryable, orgId: string, itemId: string, limit: number): Promise<StockMovement[]> {
  const { rows } = await q.query(
    `select ${stockMovements.selectList()} from stock_movements
      where org_id = $1 and (item_id = $2) order by created_at desc, id desc limit $3`,
    [orgId, itemId, limit],
  );
  return rows.map(stockMovements.toRecord);
}
