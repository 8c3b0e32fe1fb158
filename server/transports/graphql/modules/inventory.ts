import { inventoryItemResource, inventoryLocationResource, resourceInputSDL, type InventoryItem, type StockLevel } from '../../../../shared/index.js';
import {
  createInventoryItem,
  createLocation,
  getInventoryItem,
  listInventoryItems,
  locationsOf,
  stockHistory,
  transferInventory,
  updateInventoryItem,
  updateLocation,
} from '../../../operations/inventory.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationcreateInventoryItemArgs, MutationcreateInventoryLocationArgs, MutationtransferInventoryArgs, MutationupdateInventoryItemArgs, MutationupdateInventoryLocationArgs, QueryinfiniteInventoryItemsArgs, QueryinventoryItemArgs, QuerystockMovementsArgs } from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** The spec's inventory operations, plus locations and the stock history. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Items by name. first at most 100."
    infiniteInventoryItems(first: Int!, after: String, filter: InventoryFilter): InventoryItemConnection!
    inventoryItem(selector: InventoryItemSelector!): InventoryItem!
    inventoryLocations: [InventoryLocation!]!
    "The newest stock movements of an item (at most 100)."
    stockMovements(itemId: ID!, first: Int): [StockMovement!]!
  }

  type Mutation {
    "An opening quantity needs locationId and is recorded as an ADJUSTMENT."
    createInventoryItem(input: CreateInventoryItemInput!): InventoryItem!
    "A quantity is the new total; the difference is recorded as an ADJUSTMENT with the note."
    updateInventoryItem(id: ID!, input: UpdateInventoryItemInput!): InventoryItem!
    "Moves stock between two locations atomically."
    transferInventory(input: TransferInventoryInput!): TransferInventoryResult!
    createInventoryLocation(input: CreateInventoryLocationInput!): InventoryLocation!
    updateInventoryLocation(id: ID!, input: UpdateInventoryLocationInput!): InventoryLocation!
  }

  extend type InventoryItem {
    "Quantity per location; quantity is their sum."
    stockLevels: [StockLevel!]!
  }

  extend type StockLevel {
    location: InventoryLocation
  }

  ${connectionSDL('InventoryItem')}

  input InventoryFilter {
    category: InventoryCategory
    "true: items at or below their reorderPoint, or below zero; false: the others."
    lowStock: Boolean
    isActive: Boolean
    "true: items with a location below zero (used but never received: recorded, flagged, not refused)."
    negativeStock: Boolean
    "The item's id in the linked accounting system: a connector finds the item it linked, so a retried run updates it instead of making another."
    accountingId: String
  }

  input InventoryItemSelector {
    id: ID!
  }

  ${resourceInputSDL('CreateInventoryItemInput', inventoryItemResource, { required: ['name', 'category', 'unitPrice'] })
    .replace(/\n}$/, '\n  "Opening stock at locationId."\n  quantity: Int\n  note: String\n}')}

  ${resourceInputSDL('UpdateInventoryItemInput', inventoryItemResource)
    .replace(/\n}$/, '\n  "The new total quantity."\n  quantity: Int\n  "Why the quantity changed (kept in the stock history)."\n  note: String\n}')}

  input TransferInventoryInput {
    itemId: ID!
    fromLocationId: ID!
    toLocationId: ID!
    quantity: Int!
  }

  type TransferInventoryResult {
    success: Boolean!
    item: InventoryItem!
    fromLocation: InventoryLocation!
    toLocation: InventoryLocation!
    quantity: Int!
    movement: StockMovement!
  }

  ${resourceInputSDL('CreateInventoryLocationInput', inventoryLocationResource, { required: ['name'] })}

  ${resourceInputSDL('UpdateInventoryLocationInput', inventoryLocationResource)}
`;


export const resolvers: Resolvers = {
  Query: {
    infiniteInventoryItems: (_: unknown, args: QueryinfiniteInventoryItemsArgs, ctx: GraphQLContext) => listInventoryItems(ctx, args),
    inventoryItem: (_: unknown, { selector }: QueryinventoryItemArgs, ctx: GraphQLContext) => getInventoryItem(ctx, selector.id),
    inventoryLocations: (_: unknown, __: unknown, ctx: GraphQLContext) => locationsOf(ctx),
    stockMovements: (_: unknown, { itemId, first }: QuerystockMovementsArgs, ctx: GraphQLContext) => stockHistory(ctx, itemId, first),
  },
  Mutation: {
    createInventoryItem: (_: unknown, { input }: MutationcreateInventoryItemArgs, ctx: GraphQLContext) => createInventoryItem(ctx, input),
    updateInventoryItem: (_: unknown, { id, input }: MutationupdateInventoryItemArgs, ctx: GraphQLContext) => updateInventoryItem(ctx, id, input),
    transferInventory: (_: unknown, { input }: MutationtransferInventoryArgs, ctx: GraphQLContext) => transferInventory(ctx, input),
    createInventoryLocation: (_: unknown, { input }: MutationcreateInventoryLocationArgs, ctx: GraphQLContext) => createLocation(ctx, input),
    updateInventoryLocation: (_: unknown, { id, input }: MutationupdateInventoryLocationArgs, ctx: GraphQLContext) => updateLocation(ctx, id, input),
  },
  InventoryItem: {
    location: (i: InventoryItem, _: unknown, ctx: GraphQLContext) => (i.locationId ? ctx.loaders.location.load(i.locationId) : null),
    stockLevels: (i: InventoryItem, _: unknown, ctx: GraphQLContext) => ctx.loaders.stockLevels.load(i.id),
  },
  StockLevel: {
    location: (l: StockLevel, _: unknown, ctx: GraphQLContext) => ctx.loaders.location.load(l.locationId),
  },
};
