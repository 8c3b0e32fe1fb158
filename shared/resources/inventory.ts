import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';
import { DoseRecordShape } from './chemistry.js';

export const INVENTORY_CATEGORIES = ['CHEMICAL', 'EQUIPMENT', 'PARTS', 'SUPPLIES'] as const;

/** A place stock is kept: the warehouse, a truck. */
export const inventoryLocationResource = defineResource({
  name: 'InventoryLocation',
  table: 'inventory_locations',
  collection: 'inventoryLocations',
  fields: {
    name: f.string().max(200).owner('office'),
    address: f.string().nullable().max(500).owner('office'),
    technicianId: f.id().nullable().owner('office').doc("The technician whose truck this is: their devices hold its stock"),
  },
});
export type InventoryLocation = RecordOf<typeof inventoryLocationResource>;

/**
 * A stocked product. `quantity` is the server-derived total over all locations; devices never
 * write it, they append stock movements.
 */
export const inventoryItemResource = defineResource({
  name: 'InventoryItem',
  table: 'inventory_items',
  collection: 'inventoryItems',
  relations: { location: 'InventoryLocation' },
  fields: {
    name: f.string().max(500).owner('office'),
    sku: f.string().nullable().max(100).owner('office'),
    description: f.string().nullable().max(10000).owner('office'),
    category: f.enum('InventoryCategory', INVENTORY_CATEGORIES).owner('office'),
    unitPrice: f.money().owner('office'),
    costPrice: f.money().nullable().owner('office'),
    quantity: f.int().owner('server').doc('Total over all locations, derived from the ledger'),
    reorderPoint: f.int().nullable().owner('office'),
    locationId: f.id().nullable().owner('office').doc('Default storage location'),
    unit: f.string().nullable().max(50).owner('office'),
    accountingId: f.string().nullable().max(200).owner('office'),
    isActive: f.boolean().owner('office'),
  },
});
export type InventoryItem = RecordOf<typeof inventoryItemResource>;

/** Quantity of one item at one location; derived by the server, read-only on devices. */
export const stockLevelResource = defineResource({
  name: 'StockLevel',
  table: 'stock_levels',
  collection: 'stockLevels',
  fields: {
    itemId: f.id().owner('server'),
    locationId: f.id().owner('server'),
    quantity: f.int().owner('server').doc('May go below zero: recorded, flagged, not rejected'),
  },
});
export type StockLevel = RecordOf<typeof stockLevelResource>;

export const STOCK_REASONS = ['USE', 'ADJUSTMENT', 'TRANSFER', 'RECEIVE', 'RETURN'] as const;
export type StockMovementReason = (typeof STOCK_REASONS)[number];

/**
 * One immutable change of stock. Devices insert these (id generated on the device); the server
 * applies each exactly once to the levels and totals.
 */
export const stockMovementResource = defineResource({
  name: 'StockMovement',
  table: 'stock_movements',
  collection: 'stockMovements',
  fields: {
    itemId: f.id(),
    locationId: f.id(),
    toLocationId: f.id().nullable().doc('Set for transfers: the receiving location'),
    delta: f.int().doc('Units added (positive) or taken (negative) at locationId'),
    reason: f.enum('StockMovementReason', STOCK_REASONS),
    serviceId: f.id().nullable().doc('The visit the stock was used on'),
    note: f.string().nullable().max(2000),
    dose: f.object(DoseRecordShape).nullable().doc('Set when the movement is a chemical dose on a visit'),
    createdById: f.id().nullable().owner('server'),
  },
});
export type StockMovement = RecordOf<typeof stockMovementResource>;
