import { describe, expect, it } from 'vitest';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, newOrganization, type TestServer } from './support/server.js';

/** The spec's inventory operations: stock per location, the ledger behind every change, transfers. */
const CREATE_LOCATION = `mutation CreateInventoryLocation($input: CreateInventoryLocationInput!) {
  createInventoryLocation(input: $input) { id name address } }`;
const LOCATIONS = `query { inventoryLocations { id name } }`;
const CREATE_ITEM = `mutation CreateInventoryItem($input: CreateInventoryItemInput!) {
  createInventoryItem(input: $input) {
    id name sku description category unitPrice costPrice quantity reorderPoint unit accountingId isActive
    location { id name } createdAt updatedAt } }`;
const UPDATE_ITEM = `mutation UpdateInventoryItem($id: ID!, $input: UpdateInventoryItemInput!) {
  updateInventoryItem(id: $id, input: $input) { id name quantity updatedAt } }`;
const ITEM = `query InventoryItem($selector: InventoryItemSelector!) {
  inventoryItem(selector: $selector) { id name quantity stockLevels { quantity location { id name } } } }`;
const ITEMS = `query InfiniteInventoryItems($first: Int!, $after: String, $filter: InventoryFilter) {
  infiniteInventoryItems(first: $first, after: $after, filter: $filter) {
    edges { node { id name quantity reorderPoint category } cursor } pageInfo { hasNextPage endCursor } } }`;
const TRANSFER = `mutation TransferInventory($input: TransferInventoryInput!) {
  transferInventory(input: $input) { success fromLocation { id name } toLocation { id name } quantity item { id name } } }`;
const HISTORY = `query StockMovements($itemId: ID!) { stockMovements(itemId: $itemId) { delta reason note locationId toLocationId } }`;

describe.each(engines)('inventory on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let adminToken: string;
  let admin: ReturnType<typeof caller>;
  let warehouse: string;
  let truck: string;

  useTestServer(engine, { organization: 'Stock Pools' }, async (t) => {
    ({ store, server } = t);
    adminToken = t.token;
    admin = caller(server, adminToken);
    warehouse = ok(await admin(CREATE_LOCATION, { input: { name: 'Warehouse', address: '1 Depot Rd' } })).createInventoryLocation.id;
    truck = ok(await admin(CREATE_LOCATION, { input: { name: 'Truck 7' } })).createInventoryLocation.id;
  });

  const newItem = async (input: Record<string, unknown> = {}) =>
    ok(
      await admin(CREATE_ITEM, {
        input: { name: 'Liquid chlorine', category: 'CHEMICAL', unitPrice: 6.5, unit: 'gallon', locationId: warehouse, quantity: 40, ...input },
      }),
    ).createInventoryItem;
  const levels = async (id: string) =>
    Object.fromEntries(
      ok(await admin(ITEM, { selector: { id } })).inventoryItem.stockLevels.map((l: any) => [l.location.name, l.quantity]),
    );

  it('createInventoryItem stores every field; the opening quantity is held at its location', async () => {
    const item = await newItem({ sku: 'CL-1', description: '12.5 %', costPrice: 3.1, reorderPoint: 10, accountingId: 'acc-9' });
    expect(item).toMatchObject({
      name: 'Liquid chlorine', sku: 'CL-1', category: 'CHEMICAL', unitPrice: 6.5, costPrice: 3.1, quantity: 40,
      reorderPoint: 10, unit: 'gallon', accountingId: 'acc-9', isActive: true, location: { id: warehouse, name: 'Warehouse' },
    });
    expect(await levels(item.id)).toEqual({ Warehouse: 40 });
    expect(ok(await admin(LOCATIONS)).inventoryLocations.map((l: any) => l.name)).toEqual(['Truck 7', 'Warehouse']);
  });

  it('setting quantity records an adjustment with its note, and returns the submitted quantity', async () => {
    const item = await newItem();
    const updated = ok(await admin(UPDATE_ITEM, { id: item.id, input: { quantity: 31, note: 'Cycle count' } })).updateInventoryItem;
    expect(updated.quantity).toBe(31);
    expect(updated.updatedAt > item.updatedAt).toBe(true);
    const history = ok(await admin(HISTORY, { itemId: item.id })).stockMovements;
    expect(history[0]).toMatchObject({ delta: -9, reason: 'ADJUSTMENT', note: 'Cycle count', locationId: warehouse });
    expect(history[1]).toMatchObject({ delta: 40, reason: 'ADJUSTMENT', note: 'Opening stock' });
    const renamed = ok(await admin(UPDATE_ITEM, { id: item.id, input: { name: 'Chlorine 12.5%' } })).updateInventoryItem;
    expect(renamed).toMatchObject({ name: 'Chlorine 12.5%', quantity: 31 });
    expect(ok(await admin(HISTORY, { itemId: item.id })).stockMovements).toHaveLength(2);
  });

  it('transferInventory moves stock atomically; the total stays and both levels change', async () => {
    const item = await newItem();
    const result = ok(await admin(TRANSFER, { input: { itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 15 } }))
      .transferInventory;
    expect(result).toEqual({
      success: true,
      fromLocation: { id: warehouse, name: 'Warehouse' },
      toLocation: { id: truck, name: 'Truck 7' },
      quantity: 15,
      item: { id: item.id, name: 'Liquid chlorine' },
    });
    expect(await levels(item.id)).toEqual({ Warehouse: 25, 'Truck 7': 15 });
    expect(ok(await admin(ITEM, { selector: { id: item.id } })).inventoryItem.quantity).toBe(40);
  });

  it('refuses a transfer of too much, to the same place, of a non-positive quantity, or across organizations', async () => {
    const item = await newItem({ quantity: 5 });
    const transfer = (input: Record<string, unknown>) =>
      admin(TRANSFER, { input: { itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 1, ...input } });
    const tooMuch = await transfer({ quantity: 6 });
    expect(errorCodes(tooMuch)).toEqual(['BAD_USER_INPUT']);
    expect(tooMuch.errors![0]!.message).toMatch(/Warehouse holds 5 of Liquid chlorine; cannot transfer 6/);
    expect(errorCodes(await transfer({ toLocationId: warehouse }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await transfer({ quantity: 0 }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await transfer({ quantity: -2 }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await transfer({ quantity: 1.5 }))).toEqual(['BAD_USER_INPUT']);

    const rival = caller(server, (await newOrganization(store.db, 'Rival Stock')).token);
    const rivalLocation = ok(await rival(CREATE_LOCATION, { input: { name: 'Rival yard' } })).createInventoryLocation.id;
    expect(errorCodes(await transfer({ toLocationId: rivalLocation }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await rival(ITEM, { selector: { id: item.id } }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await rival(UPDATE_ITEM, { id: item.id, input: { quantity: 0 } }))).toEqual(['NOT_FOUND']);
    expect(await levels(item.id)).toEqual({ Warehouse: 5 });
  });

  it('concurrent transfers never take more than the source holds', async () => {
    const item = await newItem({ quantity: 10 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        admin(TRANSFER, { input: { itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 3 } }),
      ),
    );
    expect(results.filter((r) => !r.errors).length).toBe(3);
    expect(await levels(item.id)).toEqual({ Warehouse: 1, 'Truck 7': 9 });
  });

  it('POST /inventory/transfer runs the same operation: same result object, same rules, same codes', async () => {
    const item = await newItem({ quantity: 8 });
    const rest = (body: unknown, token: string | null = adminToken, type = 'application/json') =>
      fetch(`${server.url}/inventory/transfer`, {
        method: 'POST',
        headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const moved = await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 3 });
    expect(moved).toMatchObject({
      status: 200,
      body: {
        success: true,
        item: { id: item.id, name: 'Liquid chlorine' },
        fromLocation: { id: warehouse, name: 'Warehouse' },
        toLocation: { id: truck, name: 'Truck 7' },
        quantity: 3,
      },
    });
    expect(await levels(item.id)).toEqual({ Warehouse: 5, 'Truck 7': 3 });
    const tooMuch = await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 6 });
    expect(tooMuch).toMatchObject({ status: 400, body: { error: { code: 'BAD_USER_INPUT' } } });
    expect(tooMuch.body.error.message).toMatch(/Warehouse holds 5 of Liquid chlorine; cannot transfer 6/);
    expect((await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: warehouse, quantity: 1 })).status).toBe(400);
    expect((await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 0 })).status).toBe(400);
    expect((await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 1, extra: true })).status).toBe(400);
    expect((await rest({ itemId: 'nope', fromLocationId: warehouse, toLocationId: truck, quantity: 1 })).body.error.code).toBe('NOT_FOUND');
    expect((await rest('{"itemId": ', adminToken)).body.error.code).toBe('BAD_USER_INPUT');
    expect((await rest('itemId=1', adminToken, 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 1 }, null)).status).toBe(401);
    const rival = (await newOrganization(store.db, 'Rival REST')).token;
    expect((await rest({ itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 1 }, rival)).status).toBe(404);
    expect(await levels(item.id)).toEqual({ Warehouse: 5, 'Truck 7': 3 });
  });

  it('lowStock selects items at or below reorderPoint; category filters; pages by name', async () => {
    const rival = caller(server, (await newOrganization(store.db, 'Filter Stock')).token);
    const loc = ok(await rival(CREATE_LOCATION, { input: { name: 'Shed' } })).createInventoryLocation.id;
    const make = (name: string, category: string, quantity: number, reorderPoint: number | null) =>
      rival(CREATE_ITEM, { input: { name, category, unitPrice: 1, locationId: loc, quantity, reorderPoint } });
    ok(await make('Acid', 'CHEMICAL', 2, 5));
    ok(await make('Brush', 'SUPPLIES', 5, 5));
    ok(await make('Cartridge', 'PARTS', 9, 5));
    ok(await make('Drain plug', 'PARTS', 0, null));
    const names = async (filter: unknown) =>
      ok(await rival(ITEMS, { first: 50, filter })).infiniteInventoryItems.edges.map((e: any) => e.node.name);
    expect(await names({ lowStock: true })).toEqual(['Acid', 'Brush']);
    expect(await names({ lowStock: false })).toEqual(['Cartridge', 'Drain plug']);
    expect(await names({ category: 'PARTS' })).toEqual(['Cartridge', 'Drain plug']);
    expect(await names({ category: 'PARTS', lowStock: true })).toEqual([]);
    const page1 = ok(await rival(ITEMS, { first: 3 })).infiniteInventoryItems;
    const page2 = ok(await rival(ITEMS, { first: 3, after: page1.pageInfo.endCursor })).infiniteInventoryItems;
    expect([...page1.edges, ...page2.edges].map((e: any) => e.node.name)).toEqual(['Acid', 'Brush', 'Cartridge', 'Drain plug']);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    expect(errorCodes(await rival(ITEMS, { first: 5, filter: { category: 'FOOD' } }))).toEqual(['BAD_USER_INPUT']);
  });

  it('bad item input is refused and changes nothing; technicians cannot edit the catalog', async () => {
    const item = await newItem();
    const bad = [
      { name: '', category: 'CHEMICAL', unitPrice: 1 },
      { name: 'x', category: 'CHEMICAL', unitPrice: 1, quantity: -1, locationId: warehouse },
      { name: 'x', category: 'CHEMICAL', unitPrice: 1, quantity: 3 },
    ];
    for (const input of bad) expect(errorCodes(await admin(CREATE_ITEM, { input }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await admin(UPDATE_ITEM, { id: item.id, input: { quantity: -4 } }))).toEqual(['BAD_USER_INPUT']);
    const tech = caller(server, (await tokenFor(server, adminToken, 'TECHNICIAN')).token);
    expect(errorCodes(await tech(UPDATE_ITEM, { id: item.id, input: { quantity: 0 } }))).toEqual(['FORBIDDEN']);
    expect(ok(await tech(TRANSFER, { input: { itemId: item.id, fromLocationId: warehouse, toLocationId: truck, quantity: 4 } })).transferInventory.success).toBe(true);
    expect(ok(await admin(ITEM, { selector: { id: item.id } })).inventoryItem.quantity).toBe(40);
  });
});
