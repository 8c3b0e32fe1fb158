import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHEMISTRY_SETTINGS, FORMULA_VERSIONS, waterBalance, type FormulaVersion } from '../shared/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { engines } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, type TestServer } from './support/server.js';
import { pushChanges } from './support/sync.js';

/**
 * Water chemistry through the API: `waterBalance`, the organization's settings, a visit's
 * own balance at its formula version, readings refused wherever they arrive, doses as stock
 * movements pushed by a device, and chemical cost per pool (GraphQL and CSV).
 */
const BALANCE = `query($input: WaterBalanceInput!) { waterBalance(input: $input) {
  formulaVersion csi lsi lsiTdsConstant carbonateAlkalinity band notes
  doses { reading chemical strengthPercent amount unit from to target carriedOver } } }`;
const SETTINGS = `{ organization { settings { waterChemistry {
  pool { ph { min target max } salt { min target max } } saltPool { salt { min target max } }
  products { chemical itemId strengthPercent } caps { chemical amount unit } fillWater { calciumHardness } } } } }`;
const SAVE_SETTINGS = `mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { waterChemistry { products { chemical itemId strengthPercent } } } }`;
const CREATE_VISIT = `mutation($input: CreateServiceInput!) { createService(input: $input) { id chemistryVersion } }`;
const VISIT_BALANCE = `query($id: ID) { infiniteServices(first: 1, selector: { filters: { id: { eq: $id } } }) { edges { node { id chemistryVersion
  waterBalance { formulaVersion csi band notes doses { reading chemical amount unit from to } } } } } }`;
const VISIT_COUNT = `{ infiniteServices(first: 100) { edges { node { id } } } }`;
const COST = `query($from: DateTime!, $to: DateTime!, $customerId: ID) { chemicalCost(from: $from, to: $to, customerId: $customerId) {
  currency total customers { customerId customer { lastName } total unpricedUnits lines { itemName chemical units unit unitCost cost } } } }`;

const tenK = 10_000;
const round = (n: number, places: number) => Number(n.toFixed(places));

describe.each(engines)('water chemistry over the API, on %s', (engine) => {
  let server: TestServer;
  let admin: ReturnType<typeof caller>;
  let adminToken: string;
  let tech: string;
  let techUser: string;
  let truck: string;
  let acid: string;
  let chlorine: string;
  let customerId: string;

  useTestServer(engine, { organization: 'Balanced Pools' }, async (t) => {
    server = t.server;
    adminToken = t.token;
    admin = caller(server, adminToken);
    const technician = await tokenFor(server, adminToken, 'TECHNICIAN');
    tech = technician.token;
    techUser = technician.apiToken.userId;
    const location = async (name: string, technicianId: string | null) =>
      ok(await admin(`mutation($input: CreateInventoryLocationInput!) { createInventoryLocation(input: $input) { id } }`, { input: { name, technicianId } })).createInventoryLocation.id as string;
    truck = await location('Truck 1', techUser);
    const item = async (name: string, unit: string, costPrice: number) =>
      ok(await admin(`mutation($input: CreateInventoryItemInput!) { createInventoryItem(input: $input) { id } }`, { input: { name, category: 'CHEMICAL', unitPrice: 1, costPrice, unit, locationId: truck, quantity: 500 } }))
        .createInventoryItem.id as string;
    acid = await item('Muriatic acid 31.45%', 'fl oz', 0.06);
    chlorine = await item('Liquid chlorine 12.5%', 'gallon', 4.5);
    customerId = ok(
      await admin(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`, {
        input: { firstName: 'Wanda', lastName: 'Waters', pool: { kind: 'POOL', volumeGallons: 15_000, sanitizer: 'CHLORINE' }, service: { technicianId: techUser } },
      }),
    ).createCustomer.id;
  });

  it('waterBalance answers the vectors with the formula version and constants it used, and notes what it could not do', async () => {
    const csi = ok(await admin(BALANCE, { input: { readings: { ph: 7.8, totalAlkalinity: 80, calciumHardness: 250, cyanuricAcid: 80, salt: 3400, temperature: 94 } } })).waterBalance;
    expect(round(csi.csi, 2)).toBe(-0.07);
    expect(csi).toMatchObject({ formulaVersion: 1, lsiTdsConstant: 12.3, band: 'BALANCED', doses: [] });
    expect(csi.notes).toContain("No pool volume known: doses need it (set the volume on the customer's pool).");
    // The same numbers as the engine itself (one engine, not a copy).
    expect(csi.csi).toBe(waterBalance({ readings: { ph: 7.8, totalAlkalinity: 80, calciumHardness: 250, cyanuricAcid: 80, salt: 3400, temperature: 94 } }).csi);

    const acidDose = ok(await admin(BALANCE, { input: { readings: { ph: 7.8, totalAlkalinity: 100 }, volumeGallons: tenK, targets: { ph: 7.5, totalAlkalinity: 100 } } })).waterBalance.doses;
    // The acid takes 3.77 ppm of alkalinity; with a target of 100 given, bicarbonate brings it back.
    expect(acidDose.map((d: any) => [d.reading, d.chemical])).toEqual([['ph', 'MURIATIC_ACID'], ['totalAlkalinity', 'SODIUM_BICARBONATE']]);
    expect(round(acidDose[1].from, 2)).toBe(96.23);
    expect(acidDose[0]).toMatchObject({ reading: 'ph', chemical: 'MURIATIC_ACID', strengthPercent: 31.45, unit: 'FL_OZ', from: 7.8, to: 7.5, target: 7.5, carriedOver: 0 });
    expect(round(acidDose[0].amount, 1)).toBe(9.6);

    const chlorineDose = ok(await admin(BALANCE, { input: { readings: { freeChlorine: 2 }, volumeGallons: tenK, targets: { freeChlorine: 3 }, products: [{ chemical: 'LIQUID_CHLORINE', strengthPercent: 10 }] } })).waterBalance.doses[0];
    expect(chlorineDose).toMatchObject({ chemical: 'LIQUID_CHLORINE', strengthPercent: 10 });
    expect(round(chlorineDose.amount, 1)).toBe(12.8);
  });

  it('refuses what a test kit cannot show, naming the field; a missing reading or volume is not an error', async () => {
    const refused = async (input: Record<string, unknown>) => {
      const answer = await admin(BALANCE, { input: { readings: {}, ...input } });
      expect(errorCodes(answer)).toEqual(['BAD_USER_INPUT']);
      return answer.errors![0]!.message;
    };
    expect(await refused({ readings: { ph: 15 } })).toBe('Invalid input: readings.ph: must be between 0 and 14');
    expect(await refused({ readings: { cyanuricAcid: -5 } })).toBe('Invalid input: readings.cyanuricAcid: must be at least 0');
    expect(await refused({ readings: { temperature: 140 } })).toBe('Invalid input: readings.temperature: must be between 32 and 130');
    expect(await refused({ volumeGallons: 0 })).toBe('Invalid input: volumeGallons: must be greater than 0 and at most 10000000');
    expect(await refused({ volumeGallons: 20_000_000 })).toBe('Invalid input: volumeGallons: must be greater than 0 and at most 10000000');
    expect(await refused({ products: [{ chemical: 'LIQUID_CHLORINE', strengthPercent: 40 }] })).toBe(
      'Invalid input: products.0.strengthPercent: must be between 1 and 15 (available chlorine, trade percent (grams per 100 mL))',
    );
    const partial = ok(await admin(BALANCE, { input: { readings: { freeChlorine: 0.5 }, volumeGallons: tenK } })).waterBalance;
    expect(partial.csi).toBeNull();
    expect(partial.doses.map((d: any) => d.reading)).toEqual(['freeChlorine']);
    expect(partial.notes).toContain('Not measured, so nothing is suggested for: pH, alkalinity, cyanuric acid, calcium hardness.');
  });

  it("the organization's settings: the defaults, edits that change the suggestions, refusals that name the field, null for the defaults again", async () => {
    const saved = ok(await admin(SETTINGS)).organization.settings.waterChemistry;
    expect(saved.pool.ph).toEqual(DEFAULT_CHEMISTRY_SETTINGS.pool.ph);
    expect(saved).toMatchObject({ products: [], caps: [], fillWater: null, pool: { salt: null }, saltPool: { salt: { min: 2700, target: 3200, max: 3400 } } });

    // pH 7.8 is inside the default range (nothing to do) until the organization narrows it.
    const ph78 = { input: { readings: { ph: 7.8, totalAlkalinity: 100 }, volumeGallons: tenK } };
    expect(ok(await admin(BALANCE, ph78)).waterBalance.doses).toEqual([]);
    const narrowed = { ...DEFAULT_CHEMISTRY_SETTINGS, pool: { ...DEFAULT_CHEMISTRY_SETTINGS.pool, ph: { min: 7.3, target: 7.5, max: 7.6 } }, products: [{ chemical: 'MURIATIC_ACID', itemId: acid, strengthPercent: 14.5 }], caps: [{ chemical: 'MURIATIC_ACID', amount: 16, unit: 'FL_OZ' }] };
    expect(ok(await admin(SAVE_SETTINGS, { input: { waterChemistry: narrowed } })).updateOrganizationSettings.waterChemistry.products).toEqual([{ chemical: 'MURIATIC_ACID', itemId: acid, strengthPercent: 14.5 }]);
    const capped = ok(await admin(BALANCE, ph78)).waterBalance.doses[0];
    // 9.65 fl oz at 31.45 % is 20.9 at 14.5 %: the cap of 16 holds 4.9 back.
    expect(capped).toMatchObject({ chemical: 'MURIATIC_ACID', strengthPercent: 14.5, amount: 16, unit: 'FL_OZ' });
    expect(round(capped.carriedOver, 1)).toBe(4.9);

    const refusal = async (waterChemistry: unknown) => {
      const answer = await admin(SAVE_SETTINGS, { input: { waterChemistry } });
      expect(errorCodes(answer)).toEqual(['BAD_USER_INPUT']);
      return answer.errors![0]!.message;
    };
    expect(await refusal({ ...narrowed, spa: { ...narrowed.spa, ph: { min: 7.6, target: 7.5, max: 7.8 } } })).toBe('Invalid input: waterChemistry.spa.ph: must have min <= target <= max');
    expect(await refusal({ ...narrowed, caps: [{ chemical: 'SALT', amount: 1, unit: 'FL_OZ' }] })).toBe('Invalid input: waterChemistry.caps.0.unit: FL_OZ is not how salt is measured');
    expect(await refusal({ ...narrowed, products: [{ chemical: 'SALT', itemId: 'no-such-item' }] })).toBe('waterChemistry.products.0.itemId: inventory item no-such-item was not found');
    // Refused settings changed nothing; null is the defaults again.
    expect(ok(await admin(SETTINGS)).organization.settings.waterChemistry.pool.ph).toEqual({ min: 7.3, target: 7.5, max: 7.6 });
    ok(await admin(SAVE_SETTINGS, { input: { waterChemistry: null } }));
    expect(ok(await admin(SETTINGS)).organization.settings.waterChemistry.pool.ph).toEqual(DEFAULT_CHEMISTRY_SETTINGS.pool.ph);
  });

  it("a visit's balance comes from its readings and its customer's pool, with the formula version it keeps after the engine moves on", async () => {
    const readings = { ph: 8.1, totalAlkalinity: 100, freeChlorine: 3, calciumHardness: 300, cyanuricAcid: 50, temperature: 84 };
    const visit = ok(await admin(CREATE_VISIT, { input: { customerId, chemicalReadings: readings } })).createService;
    expect(visit.chemistryVersion).toBe(1);
    const balance = async (id: string) => ok(await admin(VISIT_BALANCE, { id })).infiniteServices.edges[0].node.waterBalance;
    const first = await balance(visit.id);
    // 15,000 gallons from the customer's pool.
    expect(first).toMatchObject({ formulaVersion: 1, band: 'SCALING', doses: [{ reading: 'ph', chemical: 'MURIATIC_ACID', unit: 'FL_OZ', from: 8.1, to: 7.5 }] });
    expect(first.doses[0].amount).toBeCloseTo(waterBalance({ readings, volumeGallons: 15_000 }).doses[0]!.amount, 9);

    // A later engine (registered here as version 2) computes differently; the visit keeps version 1's numbers.
    const v1 = FORMULA_VERSIONS.get(1)!;
    const later: FormulaVersion = { version: 2, changes: 'test', compute: (input) => ({ ...v1.compute(input), formulaVersion: 2, csi: 0, doses: [] }) };
    (FORMULA_VERSIONS as Map<number, FormulaVersion>).set(2, later);
    try {
      const recordedLater = ok(await admin(CREATE_VISIT, { input: { customerId, chemicalReadings: readings, chemistryVersion: 2 } })).createService.id;
      expect(await balance(visit.id)).toEqual(first);
      expect(await balance(recordedLater)).toMatchObject({ formulaVersion: 2, csi: 0, doses: [] });
    } finally {
      (FORMULA_VERSIONS as Map<number, FormulaVersion>).delete(2);
    }
  });

  it('an impossible reading is refused by GraphQL and by a sync push, with the words naming the field, and nothing is recorded', async () => {
    const before = ok(await admin(VISIT_COUNT)).infiniteServices.edges.length;
    const created = await admin(CREATE_VISIT, { input: { customerId, chemicalReadings: { ph: 15, freeChlorine: 2 } } });
    expect(errorCodes(created)).toEqual(['BAD_USER_INPUT']);
    expect(created.errors![0]!.message).toBe('Invalid input: chemicalReadings.ph: must be between 0 and 14');
    const cold = await admin(CREATE_VISIT, { input: { customerId, chemicalReadings: { temperature: 20, freeChlorine: 2 } } });
    expect(errorCodes(cold)).toEqual(['BAD_USER_INPUT']);
    expect(cold.errors![0]!.message).toBe('Invalid input: chemicalReadings.temperature: must be between 32 and 130');
    expect(ok(await admin(VISIT_COUNT)).infiniteServices.edges).toHaveLength(before);

    // A pool's volume is bounded the same way on the customer, and the stored one is left as it was.
    const POOL = `query($id: ID) { infiniteCustomers(first: 1, selector: { filters: { id: { eq: $id } } }) { edges { node { pool { volumeGallons } } } } }`;
    const UPDATE_POOL = `mutation($id: ID!, $v: Float) { updateCustomer(id: $id, input: { pool: { kind: POOL, volumeGallons: $v } }) { id } }`;
    for (const v of [0, 20_000_000]) {
      const answer = await admin(UPDATE_POOL, { id: customerId, v });
      expect(errorCodes(answer)).toEqual(['BAD_USER_INPUT']);
      expect(answer.errors![0]!.message).toBe('Invalid input: pool.volumeGallons: must be greater than 0 and at most 10000000');
    }
    expect(ok(await admin(POOL, { id: customerId })).infiniteCustomers.edges[0].node.pool.volumeGallons).toBe(15_000);

    // A device's queued changes: a new visit with a negative reading, an edit with a pH of 15, and a good visit.
    const existing = ok(await admin(CREATE_VISIT, { input: { customerId, notes: 'before' } })).createService.id;
    const now = new Date().toISOString();
    const visit = (id: string, fields: Record<string, unknown>) => ({ id, customerId, photos: [], createdAt: now, updatedAt: now, ...fields });
    const pushed = await pushChanges(server, tech, 'services', [
      { assumedMasterState: null, newDocumentState: visit('bad-new', { chemicalReadings: { freeChlorine: -1 } }) },
      { assumedMasterState: null, newDocumentState: visit(existing, { notes: 'after', chemicalReadings: { ph: 15 } }) },
      { assumedMasterState: null, newDocumentState: visit('good-new', { chemicalReadings: { ph: 7.4 } }) },
    ]);
    expect(pushed.status).toBe(200);
    // The bad new visit is answered with a tombstone, the bad edit with the server state; the good visit is stored.
    const answers = new Map(pushed.body.map((d: any) => [d.id, d]));
    expect(answers.get('bad-new')).toMatchObject({ _deleted: true });
    expect(answers.get(existing)).toMatchObject({ notes: 'before', chemicalReadings: null, _deleted: false });
    const stored = ok(await admin(`{ infiniteServices(first: 100) { edges { node { id notes chemicalReadings { ph } chemistryVersion } } } }`)).infiniteServices.edges.map((e: any) => e.node);
    expect(stored).toHaveLength(before + 2);
    expect(stored.find((v: any) => v.id === 'good-new')).toMatchObject({ chemicalReadings: { ph: 7.4 }, chemistryVersion: 1 });
    expect(stored.find((v: any) => v.id === existing)).toMatchObject({ notes: 'before', chemicalReadings: null });
    // Both refusals are reported to the office, each with the document as the device sent it.
    const quarantine = ok(await admin(`{ syncQuarantine(collection: "services", first: 50) { edges { node { documentId reason document } } } }`)).syncQuarantine.edges.map((e: any) => e.node);
    expect(quarantine.find((q: any) => q.documentId === 'bad-new')?.reason).toBe('invalid document: chemicalReadings.freeChlorine: must be at least 0');
    expect(quarantine.find((q: any) => q.documentId === existing)).toMatchObject({ reason: 'invalid document: chemicalReadings.ph: must be between 0 and 14', document: { notes: 'after' } });
  });

  it('a dose pushed by a device moves the truck and the chemical cost; its correction moves both again; GraphQL and the CSV agree', async () => {
    const visit = ok(await admin(CREATE_VISIT, { input: { customerId, startTime: '2026-11-20T15:00:00.000Z', newTechnicianId: techUser, chemicalReadings: { ph: 7.9, totalAlkalinity: 100 } } })).createService.id;
    const level = async (item: string) =>
      ok(await admin(`query($id: ID!) { inventoryItem(selector: { id: $id }) { stockLevels { quantity location { id } } } }`, { id: item })).inventoryItem.stockLevels.find((l: any) => l.location.id === truck).quantity;
    const cost = async () => ok(await admin(COST, { from: '2026-11-01T00:00:00Z', to: '2026-12-01T00:00:00Z', customerId })).chemicalCost;
    const movement = (id: string, item: string, delta: number, dose: Record<string, unknown>) => ({
      id, itemId: item, locationId: truck, toLocationId: null, delta, reason: delta < 0 ? 'USE' : 'RETURN', serviceId: visit, note: null,
      dose: { reading: 'ph', suggestedAmount: null, suggestedUnit: null, strengthPercent: 31.45, formulaVersion: 1, correctsMovementId: null, ...dose },
    });
    const dose = movement('dose-1', acid, -13, { chemical: 'MURIATIC_ACID', suggestedAmount: 12.87, suggestedUnit: 'FL_OZ' });
    const chlorineDose = movement('dose-2', chlorine, -1, { chemical: 'LIQUID_CHLORINE', reading: 'freeChlorine', strengthPercent: 12.5 });
    // Sent twice (a retry whose answer was lost): applied once.
    for (let i = 0; i < 2; i++) expect((await pushChanges(server, tech, 'stockMovements', [{ newDocumentState: dose }, { newDocumentState: chlorineDose }])).status).toBe(200);
    expect(await level(acid)).toBe(500 - 13);
    const stored = ok(await admin(`query($id: ID!) { stockMovements(itemId: $id) { id delta dose { chemical suggestedAmount suggestedUnit formulaVersion } } }`, { id: acid })).stockMovements;
    expect(stored.filter((m: any) => m.id === 'dose-1')).toEqual([{ id: 'dose-1', delta: -13, dose: { chemical: 'MURIATIC_ACID', suggestedAmount: 12.87, suggestedUnit: 'FL_OZ', formulaVersion: 1 } }]);
    expect(await cost()).toMatchObject({
      currency: 'USD',
      total: 5.28,
      customers: [
        {
          customerId, customer: { lastName: 'Waters' }, total: 5.28, unpricedUnits: 0,
          lines: [
            { itemName: 'Liquid chlorine 12.5%', chemical: 'LIQUID_CHLORINE', units: 1, unit: 'gallon', unitCost: 4.5, cost: 4.5 },
            { itemName: 'Muriatic acid 31.45%', chemical: 'MURIATIC_ACID', units: 13, unit: 'fl oz', unitCost: 0.06, cost: 0.78 },
          ],
        },
      ],
    });

    // Only 10 fl oz went in: a compensating movement of +3 names the dose it corrects. Truck and cost move again.
    const correction = movement('dose-1-fix', acid, 3, { chemical: 'MURIATIC_ACID', correctsMovementId: 'dose-1' });
    expect((await pushChanges(server, tech, 'stockMovements', [{ newDocumentState: correction }])).status).toBe(200);
    expect(await level(acid)).toBe(500 - 10);
    expect((await cost()).customers[0].lines[1]).toMatchObject({ units: 10, cost: 0.6 });
    expect((await cost()).total).toBe(5.1);

    const csv = await fetch(`${server.url}/chemical-cost/export/csv?from=2026-11-01&to=2026-12-01`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(parse(await csv.text(), { columns: true })).toEqual([
      { 'customer id': customerId, 'customer name': 'Wanda Waters', item: 'Liquid chlorine 12.5%', chemical: 'LIQUID_CHLORINE', 'units used': '1', unit: 'gallon', 'unit cost': '4.5', cost: '4.5', 'customer total': '5.1', currency: 'USD' },
      { 'customer id': customerId, 'customer name': 'Wanda Waters', item: 'Muriatic acid 31.45%', chemical: 'MURIATIC_ACID', 'units used': '10', unit: 'fl oz', 'unit cost': '0.06', cost: '0.6', 'customer total': '5.1', currency: 'USD' },
    ]);
    // A bad request fails before anything is sent; a technician may not read costs.
    const bad = await fetch(`${server.url}/chemical-cost/export/csv?from=2026-12-01&to=2026-11-01`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe('Invalid input: to: must be after from');
    expect(errorCodes(await caller(server, tech)(COST, { from: '2026-11-01T00:00:00Z', to: '2026-12-01T00:00:00Z' }))).toEqual(['FORBIDDEN']);
  });
});
