import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, PoolClientError, toItemUnits, visitBalance, chemistrySettingsOf, CURRENT_FORMULA_VERSION, type PoolClient } from '../client-sdk/index.js';
import { documentOf } from '../client-sdk/replica/database.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { type TestServer } from './support/server.js';

/**
 * A dose recorded on the phone with no signal: the engine's suggestion on the device,
 * booked in one action as a stock movement from the truck, corrected offline, then synced through
 * a network that loses the server's answers. It lands once, moves the truck's stock and the pool's
 * chemical cost, and a later correction moves both again.
 */
const COST = `query($c: ID) { chemicalCost(from: "2026-01-01T00:00:00Z", to: "2030-01-01T00:00:00Z", customerId: $c) { total customers { lines { itemName units cost } } } }`;

describe.each(engines)('doses from a device, server on %s', (engine) => {
  let server: TestServer;
  let proxy: FaultProxy;
  let office: ReturnType<typeof caller>;
  let tech: string;
  let truck: string;
  let acid: string;
  let customerId: string;
  let visitId: string;
  const open: PoolClient[] = [];

  useTestServer(engine, { organization: 'Dosing Pools', server: { heartbeatMs: 200 } }, async (t) => {
    server = t.server;
    office = caller(server, t.token);
    const technician = await tokenFor(server, t.token, 'TECHNICIAN');
    tech = technician.token;
    const me = technician.apiToken.userId;
    truck = ok(await office(`mutation($t: ID) { createInventoryLocation(input: {name: "Truck 3", technicianId: $t}) { id } }`, { t: me })).createInventoryLocation.id;
    acid = ok(await office(`mutation($l: ID) { createInventoryItem(input: {name: "Muriatic acid", category: CHEMICAL, unitPrice: 0.2, costPrice: 0.05, unit: "fl oz", locationId: $l, quantity: 500}) { id } }`, { l: truck }))
      .createInventoryItem.id;
    customerId = ok(
      await office(`mutation($t: ID) { createCustomer(input: {firstName: "Dee", lastName: "Osing", pool: {kind: POOL, volumeGallons: 10000, sanitizer: "CHLORINE"}, service: {technicianId: $t}}) { id } }`, { t: me }),
    ).createCustomer.id;
    visitId = ok(
      await office(`mutation($c: ID, $t: ID) { createService(input: {customerId: $c, newTechnicianId: $t, startTime: "2026-11-26T15:00:00.000Z", chemicalReadings: {ph: 8.0, totalAlkalinity: 100, freeChlorine: 3, calciumHardness: 300, cyanuricAcid: 50, temperature: 82}}) { id } }`, {
        c: customerId,
        t: me,
      }),
    ).createService.id;
  });
  beforeEach(async () => {
    proxy = await startFaultProxy(server.url);
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    await proxy.close();
  });

  const truckLevel = async () =>
    ok(await office(`query($id: ID!) { inventoryItem(selector: { id: $id }) { stockLevels { quantity location { id } } } }`, { id: acid })).inventoryItem.stockLevels.find((l: any) => l.location.id === truck).quantity as number;
  const movementsOnServer = async () => ok(await office(`query($id: ID!) { stockMovements(itemId: $id) { id delta reason serviceId dose { chemical reading suggestedAmount suggestedUnit formulaVersion correctsMovementId } } }`, { id: acid })).stockMovements.filter((m: any) => m.serviceId === visitId);

  it('the suggestion is computed and booked offline, syncs once through lost answers, and moves the truck and the cost; a correction moves them again', async () => {
    const phone = await createPoolClient({ baseUrl: proxy.url, token: tech, retryMs: 50, requestTimeoutMs: 1000, name: `dose-${engine}` });
    open.push(phone);
    phone.sync.start();
    await phone.sync.awaitInSync();
    proxy.setMode('refuse');

    // No signal: the phone computes what the water needs from its replica alone.
    const visit = documentOf('services', (await phone.db.collections.services!.findOne(visitId).exec())!.toJSON());
    const customer = documentOf('customers', (await phone.db.collections.customers!.findOne(customerId).exec())!.toJSON());
    const org = documentOf('organization', (await phone.db.collections.organization!.find().exec())[0]!.toJSON());
    const item = documentOf('inventoryItems', (await phone.db.collections.inventoryItems!.findOne(acid).exec())!.toJSON());
    const balance = visitBalance(visit, customer, chemistrySettingsOf(org.settings));
    const dose = balance.doses.find((d) => d.reading === 'ph')!;
    expect(dose).toMatchObject({ chemical: 'MURIATIC_ACID', unit: 'FL_OZ', from: 8, to: 7.5 });
    const booked = toItemUnits(dose.amount, dose.unit, item.unit);
    expect(booked.quantity).toBe(Math.round(dose.amount));

    // Refused before anything is written: what the server would refuse, in the same kind of words.
    const refused = (p: Promise<unknown>) => p.then(() => 'accepted', (e: PoolClientError) => `${e.code}: ${e.message}`);
    const input = { visitId, itemId: acid, locationId: truck, quantity: booked.quantity!, chemical: dose.chemical, suggestion: { ...dose, formulaVersion: balance.formulaVersion } };
    expect(await refused(phone.recordDose({ ...input, quantity: 0 }))).toBe('BAD_INPUT: recordDose: quantity must be a whole number greater than 0, got 0');
    expect(await refused(phone.recordDose({ ...input, chemical: 'DRAIN' }))).toMatch(/^BAD_INPUT: recordDose: chemical must be one of LIQUID_CHLORINE, /);
    expect(await refused(phone.recordDose({ ...input, suggestion: { ...input.suggestion, strengthPercent: 60 } }))).toBe('BAD_INPUT: recordDose: suggestion.strengthPercent must be between 10 and 40 (hydrochloric acid by weight)');
    expect(await refused(phone.recordDose({ ...input, visitId: 'nope' }))).toBe('NOT_FOUND: Visit nope is not in the local replica');

    // A reading a test kit cannot show is refused on the phone with the words the server uses.
    expect(await refused(phone.updateVisit(visitId, { readings: { ph: 15 } }))).toBe('BAD_INPUT: updateVisit: chemicalReadings.ph: must be between 0 and 14');

    const movement = await phone.recordDose(input);
    expect(movement).toMatchObject({ delta: -booked.quantity!, reason: 'USE', serviceId: visitId, locationId: truck, dose: { chemical: 'MURIATIC_ACID', reading: 'ph', suggestedUnit: 'FL_OZ', formulaVersion: CURRENT_FORMULA_VERSION, correctsMovementId: null } });
    expect(movement.dose!.suggestedAmount).toBeCloseTo(dose.amount, 9);
    // Two fl oz less went in: the ledger gets a compensating movement, still offline.
    const fix = await phone.correctDose(movement.id, booked.quantity! - 2);
    expect(fix).toMatchObject({ delta: 2, reason: 'RETURN', dose: { correctsMovementId: movement.id } });
    expect(await refused(phone.correctDose(movement.id, booked.quantity! - 2))).toBe(`BAD_INPUT: correctDose: ${booked.quantity! - 2} is what is recorded already`);
    expect(await refused(phone.correctDose(fix.id, 1))).toMatch(/^BAD_INPUT: correctDose: movement .* is not a dose/);

    // Signal that loses every answer after the server committed: the phone retries what already landed.
    proxy.setMode('cut-responses');
    await expect.poll(async () => (await movementsOnServer()).length, { timeout: 15_000 }).toBe(2);
    proxy.setMode('pass');
    await phone.sync.awaitInSync({ timeoutMs: 20_000 });

    const used = booked.quantity! - 2;
    const onServer = await movementsOnServer();
    expect(onServer.map((m: any) => m.id).sort()).toEqual([movement.id, fix.id].sort());
    expect(onServer.find((m: any) => m.id === movement.id).dose).toMatchObject({ chemical: 'MURIATIC_ACID', reading: 'ph', suggestedUnit: 'FL_OZ', formulaVersion: 1, correctsMovementId: null });
    expect(await truckLevel()).toBe(500 - used);
    const cents = (units: number) => Number((units * 0.05).toFixed(2));
    expect(ok(await office(COST, { c: customerId })).chemicalCost).toEqual({ total: cents(used), customers: [{ lines: [{ itemName: 'Muriatic acid', units: used, cost: cents(used) }] }] });
    // The phone holds what the server holds: its truck level came back by sync.
    const level = await phone.db.collections.stockLevels!.findOne(`${acid}@${truck}`).exec();
    expect(level?.quantity).toBe(500 - used);

    // Later, online: 3 fl oz more than booked went in after all. Both move again.
    await phone.correctDose(movement.id, used + 3);
    await phone.sync.awaitInSync({ timeoutMs: 20_000 });
    expect(await truckLevel()).toBe(500 - used - 3);
    expect(ok(await office(COST, { c: customerId })).chemicalCost.customers[0].lines[0]).toEqual({ itemName: 'Muriatic acid', units: used + 3, cost: cents(used + 3) });
    expect(await movementsOnServer()).toHaveLength(3);
  });
});
