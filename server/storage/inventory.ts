import {
  inventoryItemResource,
  inventoryLocationResource,
  stockLevelResource,
  stockMovementResource,
  type InventoryItem,
  type InventoryLocation,
  type StockLevel,
  type StockMovement,
} from '../../shared/index.js';
import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';
import { recordTable } from './records.js';

/** Inventory items, locations and the per-location stock levels. The ledger is in stock-ledger.ts. */
export const inventoryItems = recordTable(inventoryItemResource);
export const inventoryLocations = recordTable(inventoryLocationResource);
export const stockLevels = recordTable(stockLevelResource);
export const stockMovements = recordTable(stockMovementResource);

/**
 * Low stock: at or below the reorder point, or below zero whatever the reorder point. The one rule
 * of the low-stock list (an item's total) and of `inventory.low_stock` events (a location's level,
 * against its item's reorder point: event-sql.ts).
 */
export const lowStockSql = (quantity: string, reorderPoint: string): string =>
  `((${reorderPoint} is not null and ${quantity} <= ${reorderPoint}) or ${quantity} < 0)`;

export interface InventoryFilter {
  category?: string | null;
  lowStock?: boolean | null;
  isActive?: boolean | null;
  /** Items with a location below zero (stock used that was never recorded as received). */
  negativeStock?: boolean | null;
  /** The item's id in the linked accounting system (linking records; migration 0029's index). */
  accountingId?: string | null;
}

export const INVENTORY_SORT_KEYS: readonly SortKey[] = [
  { expr: 'lower(i.name)', type: 'text', desc: false },
  { expr: 'i.id', type: 'text', desc: false },
];

function inventoryConditions(orgId: string, filter: InventoryFilter): { where: string[]; params: Params } {
  const p = new Params([orgId]);
  const where = ['i.org_id = $1', 'not i._deleted'];
  if (filter.category) where.push(`i.category = ${p.add(filter.category)}`);
  if (filter.isActive != null) where.push(`i.is_active = ${p.add(filter.isActive)}`);
  if (filter.accountingId != null) where.push(`i.accounting_id = ${p.add(filter.accountingId)}`);
  const low = lowStockSql('i.quantity', 'i.reorder_point');
  if (filter.lowStock === true) where.push(low);
  if (filter.lowStock === false) where.push(`not ${low}`);
  if (filter.negativeStock != null) {
    const below = 'exists (select 1 from stock_levels l where l.org_id = i.org_id and l.item_id = i.id and l.quantity < 0)';
    where.push(filter.negativeStock ? below : `not ${below}`);
  }
  return { where, params: p };
}

export function inventoryPage(
  q: Queryable,
  orgId: string,
  filter: InventoryFilter,
  window: PageWindow,
): Promise<PageRows<InventoryItem>> {
  const { where, params } = inventoryConditions(orgId, filter);
  return readPage(q, {
    select: inventoryItems.selectList('i'),
    from: 'inventory_items i',
    where,
    params,
    keys: INVENTORY_SORT_KEYS,
    window,
    toRecord: inventoryItems.toRecord,
  });
}

/** Ids of every item matching a filter, in id order (bulk operations snapshot these). */
export async function inventoryIdsMatching(q: Queryable, orgId: string, filter: InventoryFilter): Promise<string[]> {
  const { where, params } = inventoryConditions(orgId, filter);
  const { rows } = await q.query<{ id: string }>(`select i.id from inventory_items i where ${where.join(' and ')} order by i.id`, params.values);
  return rows.map((r) => r.id);
}

export async function listLocations(q: Queryable, orgId: string): Promise<InventoryLocation[]> {
  const { rows } = await q.query(
    `select ${inventoryLocations.selectList()} from inventory_locations
      where org_id = $1 and not _deleted order by lower(name), id`,
    [orgId],
  );
  return rows.map(inventoryLocations.toRecord);
}

export async function locationsByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<InventoryLocation[]> {
  const { rows } = await q.query(
    `select ${inventoryLocations.selectList()} from inventory_locations where org_id = $1 and id = any($2::text[])`,
    [orgId, ids],
  );
  return rows.map(inventoryLocations.toRecord);
}

export async function stockLevelsOfItems(q: Queryable, orgId: string, itemIds: readonly string[]): Promise<StockLevel[]> {
  const { rows } = await q.query(
    `select ${stockLevels.selectList()} from stock_levels
      where org_id = $1 and item_id = any($2::text[]) and not _deleted order by item_id, location_id`,
    [orgId, itemIds],
  );
  return rows.map(stockLevels.toRecord);
}

/** What a visit used from stock: each item with the units taken on it (its movements' deltas, negated). */
/**
 * A visit's stock movements, oldest first, and the items they moved (deleted items too: the
 * visit still used them): what its report says was added.
 */
export async function stockOnVisit(q: Queryable, orgId: string, serviceId: string): Promise<{ movements: StockMovement[]; items: InventoryItem[] }> {
  const moved = await q.query(
    `select ${stockMovements.selectList()} from stock_movements
      where org_id = $1 and service_id = $2 and not _deleted order by created_at, id`,
    [orgId, serviceId],
  );
  const movements = moved.rows.map(stockMovements.toRecord);
  if (!movements.length) return { movements, items: [] };
  const items = await q.query(`select ${inventoryItems.selectList()} from inventory_items where org_id = $1 and id = any($2::text[])`, [orgId, [...new Set(movements.map((m) => m.itemId))]]);
  return { movements, items: items.rows.map(inventoryItems.toRecord) };
}
