import { z } from 'zod';
import {
  errors,
  idValidator,
  INVENTORY_CATEGORIES,
  inputValidator,
  inventoryItemResource,
  inventoryLocationResource,
  type InventoryItem,
  type InventoryLocation,
  type StockLevel,
  type StockMovement,
} from '../../shared/index.js';
import type { Queryable } from '../storage/db.js';
import {
  INVENTORY_SORT_KEYS,
  inventoryItems,
  inventoryLocations,
  inventoryPage,
  listLocations,
  locationsByIds,
  stockLevelsOfItems,
  type InventoryFilter,
} from '../storage/inventory.js';
import { applyStockMovement, lockItemTotal, lockLevel, movementHistory } from '../storage/stock-ledger.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';
import { listTag, MAX_PAGE_SIZE, pageWindow, toConnection, type Connection, type PageArgs } from './pagination.js';

/**
 * Inventory: items, locations, and stock that changes only through the ledger. An item's
 * `quantity` is the sum over its locations; setting it records an ADJUSTMENT movement.
 */

const quantity = z.number().int().min(0, 'must not be negative').max(1_000_000_000);
const note = z.string().trim().max(2000).nullish();
const CreateItemInput = inputValidator(inventoryItemResource, { required: ['name', 'category', 'unitPrice'] }).extend({
  isActive: z.boolean().nullish(),
  quantity: quantity.nullish(),
  note,
});
const UpdateItemInput = inputValidator(inventoryItemResource).extend({ quantity: quantity.nullish(), note });
const CreateLocationInput = inputValidator(inventoryLocationResource, { required: ['name'] });
const UpdateLocationInput = inputValidator(inventoryLocationResource);
/** Item fields (checked by the derived validator) plus the stock change that goes to the ledger. */
type ItemChange = Partial<InventoryItem> & { quantity?: number | null; note?: string | null };

const TransferInput = z.strictObject({
  itemId: idValidator(),
  fromLocationId: idValidator(),
  toLocationId: idValidator(),
  quantity: z.number().int().positive('must be greater than 0').max(1_000_000_000),
});
/** Typed as storage's filter: TypeScript checks the validator's output against it. */
export const InventoryFilterInput: z.ZodType<InventoryFilter | null | undefined> = z
  .strictObject({
    category: z.enum(INVENTORY_CATEGORIES).nullish(),
    lowStock: z.boolean().nullish(),
    isActive: z.boolean().nullish(),
    negativeStock: z.boolean().nullish(),
    accountingId: z.string().max(200).nullish(),
  })
  .nullish();

export async function getInventoryItem(ctx: OperationContext, id: string): Promise<InventoryItem> {
  const item = await inventoryItems.findById(ctx.db, ctx.viewer.orgId, id);
  if (!item) throw errors.notFound('Inventory item', id);
  return item;
}

export async function listInventoryItems(
  ctx: OperationContext,
  args: PageArgs & { filter?: unknown },
): Promise<Connection<InventoryItem>> {
  const filter = parseInput(InventoryFilterInput, args.filter) ?? {};
  const tag = listTag(ctx.viewer.orgId, 'inventory', '');
  const window = pageWindow(args, tag, INVENTORY_SORT_KEYS.length);
  return toConnection(await inventoryPage(ctx.db, ctx.viewer.orgId, filter, window), window, tag);
}

/** Creates an item; an opening quantity is recorded as an adjustment at its location. */
export async function createInventoryItem(ctx: OperationContext, raw: unknown): Promise<InventoryItem> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'create inventory items');
  const { quantity: opening, note: openingNote, ...fields } = parseInput(CreateItemInput, raw) as ItemChange;
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const locationId = fields.locationId ?? null;
    if (locationId) await requireLocation(tx, orgId, locationId);
    if (opening && !locationId) {
      throw errors.badInput('locationId: an item with an opening quantity needs the location that holds it', { fields: ['locationId'] });
    }
    const item = await inventoryItems.insert(tx, orgId, {
      ...fields,
      isActive: fields.isActive ?? true,
      quantity: 0,
      id: newId(),
    });
    if (!opening) return item;
    await adjust(ctx, tx, item, locationId!, opening, openingNote ?? 'Opening stock');
    return (await inventoryItems.findById(tx, orgId, item.id))!;
  });
}

/**
 * Changes an item. A submitted `quantity` is the new total: the difference is recorded as an
 * ADJUSTMENT (with `note`) at the item's location, so the history explains every change.
 */
export async function updateInventoryItem(ctx: OperationContext, id: string, raw: unknown): Promise<InventoryItem> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change inventory items');
  const { quantity: target, note: reason, ...fields } = parseInput(UpdateItemInput, raw) as ItemChange;
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const total = await lockItemTotal(tx, orgId, id);
    if (total === null) throw errors.notFound('Inventory item', id);
    if (fields.locationId) await requireLocation(tx, orgId, fields.locationId);
    let item = (await inventoryItems.update(tx, orgId, id, fields))!;
    if (target != null && target !== total) {
      if (!item.locationId) {
        throw errors.badInput('quantity: the item has no location to adjust; set locationId with the quantity', {
          fields: ['quantity', 'locationId'],
        });
      }
      await adjust(ctx, tx, item, item.locationId, target - total, reason ?? null);
      item = (await inventoryItems.findById(tx, orgId, id))!;
    }
    return item;
  });
}

async function adjust(ctx: OperationContext, tx: Queryable, item: InventoryItem, locationId: string, delta: number, note: string | null) {
  await applyStockMovement(tx, ctx.viewer.orgId, {
    id: newId(),
    itemId: item.id,
    locationId,
    delta,
    reason: 'ADJUSTMENT',
    note,
    createdById: ctx.viewer.userId,
  });
}

export interface TransferResult {
  success: boolean;
  item: InventoryItem;
  fromLocation: InventoryLocation;
  toLocation: InventoryLocation;
  quantity: number;
  movement: StockMovement;
}

/**
 * Moves stock between two locations of the organization in one transaction. Refused when the
 * source holds too little, the locations are the same, or the quantity is not positive. Any role
 * may transfer (technicians load their trucks).
 */
export async function transferInventory(ctx: OperationContext, raw: unknown): Promise<TransferResult> {
  const input = parseInput(TransferInput, raw);
  if (input.fromLocationId === input.toLocationId) {
    throw errors.badInput('toLocationId: the source and destination locations must differ', { fields: ['toLocationId'] });
  }
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const item = await inventoryItems.findById(tx, orgId, input.itemId);
    if (!item) throw errors.notFound('Inventory item', input.itemId);
    const fromLocation = await requireLocation(tx, orgId, input.fromLocationId);
    const toLocation = await requireLocation(tx, orgId, input.toLocationId);
    const available = await lockLevel(tx, orgId, item.id, fromLocation.id);
    if (available < input.quantity) {
      throw errors.badInput(
        `quantity: ${fromLocation.name} holds ${available} of ${item.name}; cannot transfer ${input.quantity}`,
        { fields: ['quantity'] },
      );
    }
    const { movement } = await applyStockMovement(tx, orgId, {
      id: newId(),
      itemId: item.id,
      locationId: fromLocation.id,
      toLocationId: toLocation.id,
      delta: -input.quantity,
      reason: 'TRANSFER',
      createdById: ctx.viewer.userId,
    });
    return { success: true, item, fromLocation, toLocation, quantity: input.quantity, movement };
  });
}

async function requireLocation(tx: Queryable, orgId: string, id: string): Promise<InventoryLocation> {
  const location = await inventoryLocations.findById(tx, orgId, id);
  if (!location) throw errors.notFound('Inventory location', id);
  return location;
}

export function locationsOf(ctx: OperationContext): Promise<InventoryLocation[]> {
  return listLocations(ctx.db, ctx.viewer.orgId);
}

export async function createLocation(ctx: OperationContext, raw: unknown): Promise<InventoryLocation> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'create inventory locations');
  const input = parseInput(CreateLocationInput, raw);
  return inventoryLocations.insert(ctx.db, ctx.viewer.orgId, { address: null, ...input, id: newId() });
}

export async function updateLocation(ctx: OperationContext, id: string, raw: unknown): Promise<InventoryLocation> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change inventory locations');
  const input = parseInput(UpdateLocationInput, raw);
  const updated = await inventoryLocations.update(ctx.db, ctx.viewer.orgId, id, input);
  if (!updated) throw errors.notFound('Inventory location', id);
  return updated;
}

/** The newest movements of an item (its stock history). */
export async function stockHistory(ctx: OperationContext, itemId: string, first?: number | null): Promise<StockMovement[]> {
  const limit = parseInput(z.number().int().min(1).max(MAX_PAGE_SIZE).nullish(), first) ?? 50;
  await getInventoryItem(ctx, itemId);
  return movementHistory(ctx.db, ctx.viewer.orgId, itemId, limit);
}

export const inventoryRelations = {
  locations: (ctx: OperationContext, ids: readonly string[]) => locationsByIds(ctx.db, ctx.viewer.orgId, ids),
  stockLevels: (ctx: OperationContext, itemIds: readonly string[]): Promise<StockLevel[]> =>
    stockLevelsOfItems(ctx.db, ctx.viewer.orgId, itemIds),
};
