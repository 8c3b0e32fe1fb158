import type { StockMovement } from '../../shared/index.js';
import { badInput, notFound } from '../errors.js';
import type { ReplicaDatabase } from '../replica/database.js';
import type { Replica } from './replica.js';
import { assertPositiveInteger, newId } from './validate.js';

/**
 * Stock: the device never writes a quantity; it appends movements, which the server applies once
 * and turns into levels and totals that replicate back.
 */
export async function requireKnown(db: ReplicaDatabase, collection: 'inventoryItems' | 'inventoryLocations', id: unknown, what: string) {
  if (typeof id !== 'string' || !id) throw badInput(`${what} id is required`);
  const local = db.collections[collection];
  if (local && !(await local.findOne(id).exec())) throw notFound(what, id);
}

export async function append({ changes }: Replica, movement: Omit<StockMovement, 'id' | 'createdAt' | 'updatedAt' | 'createdById'>, action: string) {
  return changes.insert('stockMovements', { ...movement, id: newId(), createdById: null }, action);
}

export async function useStock(replica: Replica, itemId: string, locationId: string, quantity: number, visitId: string | null = null) {
  assertPositiveInteger(quantity, 'useStock: quantity');
  await requireKnown(replica.db, 'inventoryItems', itemId, 'Inventory item');
  await requireKnown(replica.db, 'inventoryLocations', locationId, 'Inventory location');
  return append(replica, { itemId, locationId, toLocationId: null, delta: -quantity, reason: 'USE', serviceId: visitId, note: null, dose: null }, 'useStock');
}

export async function transferStock(replica: Replica, itemId: string, fromLocationId: string, toLocationId: string, quantity: number) {
  assertPositiveInteger(quantity, 'transferStock: quantity');
  if (fromLocationId === toLocationId) throw badInput('transferStock: the two locations must differ');
  await requireKnown(replica.db, 'inventoryItems', itemId, 'Inventory item');
  await requireKnown(replica.db, 'inventoryLocations', fromLocationId, 'Inventory location');
  await requireKnown(replica.db, 'inventoryLocations', toLocationId, 'Inventory location');
  return append(replica, { itemId, locationId: fromLocationId, toLocationId, delta: -quantity, reason: 'TRANSFER', serviceId: null, note: null, dose: null }, 'transferStock');
}
