import { describe, expect, it } from 'vitest';
import { billCustomers } from '../server/operations/billing/generate.js';
import { billingSettings } from '../server/operations/billing/settings.js';
import { caller, ok, tokenFor } from './support/api.js';
import { waitForBulk } from './support/bulk.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';
import { pushChanges } from './support/sync.js';

/**
 * The month's run bills a chunk of customers together (server/operations/billing/README.md, "The
 * month's run"). Here whole runs fit in one chunk: billed, skipped and already-drafted customers
 * side by side, a draft the office edited gaining a late visit, a customer who changed billing
 * method mid-month, per-line tax; and chunks of many customers run at once in several
 * transactions (same period, in opposite orders, and an overlapping period), every fact billed
 * once with no empty draft and no deadlock.
 */
const Q = {
  customer: `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`,
  updateCustomer: `mutation($id: ID!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { id } }`,
  deleteCustomer: `mutation($id: ID!) { deleteCustomer(id: $id) { id } }`,
  tax: `mutation($input: CreateTaxInput!) { createTax(input: $input) { id } }`,
  settings: `mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { invoicePrefix } }`,
  org: `mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }`,
  visit: `mutation($input: CreateServiceInput!) { createService(input: $input) { id } }`,
  location: `mutation { createInventoryLocation(input: {name: "Truck"}) { id } }`,
  item: `mutation($input: CreateInventoryItemInput!) { createInventoryItem(input: $input) { id } }`,
  generate: `mutation($input: GenerateInvoicesInput!) { generateInvoices(input: $input) { id } }`,
  update: `mutation($id: ID!, $input: UpdateInvoiceInput!) { updateInvoice(id: $id, input: $input) { id } }`,
  invoices: `query($filter: InvoiceFilter, $after: String) { infiniteInvoices(first: 100, after: $after, filter: $filter) {
    edges { node { id status customerId periodStart subtotal tax total balanceDue taxRounding
      lines { id sourceType sourceId description amount taxAmount } } } pageInfo { hasNextPage endCursor } } }`,
};

type Gql = ReturnType<typeof caller>;
type Line = { id: string; sourceType: string; sourceId: string | null; description: string; amount: number; taxAmount: number | null };
type Invoice = { id: string; status: string; customerId: string; periodStart: string; subtotal: number; tax: number; total: number; balanceDue: number; lines: Line[] };

/** Noon in Phoenix (UTC-7 all year) on a date. */
const at = (date: string, hour = 12) => new Date(`${date}T${String(hour).padStart(2, '0')}:00:00-07:00`).toISOString();

async function allInvoices(gql: Gql, filter: Record<string, unknown> = {}): Promise<Invoice[]> {
  const rows: Invoice[] = [];
  for (let after: string | null = null; ; ) {
    const page: any = ok(await gql(Q.invoices, { filter, after })).infiniteInvoices;
    rows.push(...page.edges.map((e: { node: Invoice }) => e.node));
    if (!page.pageInfo.hasNextPage) return rows;
    after = page.pageInfo.endCursor;
  }
}

const liveSources = (rows: Invoice[]) => rows.filter((i) => i.status !== 'VOID').flatMap((i) => i.lines.filter((l) => l.sourceId).map((l) => `${l.sourceType}:${l.sourceId}`));

describe.each(engines)('the month run in chunks on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let gql: Gql;
  let token: string;
  let orgId: string;

  // Chunks larger than any run here: each run is one chunk, one transaction.
  useTestServer(engine, { organization: 'Chunk Pools', server: { worker: { chunkSize: 100 } } }, async (t) => {
    ({ store, server, token } = t);
    orgId = t.org.id;
    gql = caller(server, token);
    ok(await gql(Q.org, { input: { timezone: 'America/Phoenix' } }));
    const tax = ok(await gql(Q.tax, { input: { name: 'Sales tax', rate: 10 } })).createTax.id;
    ok(await gql(Q.settings, { input: { defaultTaxId: tax, taxRounding: 'PER_LINE', chemicalBilling: 'UNIT_PRICE' } }));
  });

  const customer = async (lastName: string, fields: Record<string, unknown>) => ok(await gql(Q.customer, { input: { lastName, ...fields } })).createCustomer.id as string;
  const visit = async (customerId: string, date: string) =>
    ok(await gql(Q.visit, { input: { customerId, startTime: at(date, 9), endTime: at(date, 10) } })).createService.id as string;
  const run = async (periodStart: string, periodEnd: string, customerIds: string[]) => {
    const op = ok(await gql(Q.generate, { input: { periodStart, periodEnd, customerIds } })).generateInvoices;
    const done = await waitForBulk(server, token, op.id);
    const rows = (await (await fetch(done.resultUrl)).text()).trim().split('\n').slice(1).map((l) => l.split(','));
    return { done, outcome: new Map(rows.map((r) => [r[0]!, { outcome: r[2], reason: r[3], lines: Number(r[5]), amount: Number(r[6]) }])) };
  };
  const draftOf = async (customerId: string, periodStart = '2026-10-01') => {
    const drafts = await allInvoices(gql, { status: 'DRAFT', customerId, periodStart });
    expect(drafts).toHaveLength(1);
    return drafts[0]!;
  };

  it('one chunk of billed, skipped and already drafted customers: the office edits kept, a mid-month switch billed one way, per-line tax', async () => {
    const ann = await customer('Ann', { service: { rate: 100 } });
    const bob = await customer('Bob', { billingMethod: 'MONTHLY_FLAT', service: { rate: 90, monthlyRate: 400 } });
    const cy = await customer('Cy', { status: 'INACTIVE', service: { rate: 80 } });
    const di = await customer('Di', { readyForInvoice: false, service: { rate: 80 } });
    const ed = await customer('Ed', {});
    const flo = await customer('Flo', { service: { rate: 70 } });
    const annVisits = [await visit(ann, '2026-10-01'), await visit(ann, '2026-10-08')];
    const bobVisit = await visit(bob, '2026-10-02');
    for (const c of [cy, di, ed]) await visit(c, '2026-10-03');
    const everyone = [ann, bob, cy, di, ed, flo];

    const first = await run('2026-10-01', '2026-10-31', everyone);
    expect(first.done).toMatchObject({ status: 'SUCCEEDED', total: 6, succeeded: 2, skipped: 4 });
    expect(first.outcome.get(ann)).toEqual({ outcome: 'BILLED', reason: '', lines: 2, amount: 200 });
    expect(first.outcome.get(bob)).toEqual({ outcome: 'BILLED', reason: '', lines: 2, amount: 400 });
    expect(first.outcome.get(cy)!.reason).toBe('inactive');
    expect(first.outcome.get(di)!.reason).toBe('not ready for invoice (readyForInvoice is false)');
    expect(first.outcome.get(ed)!.reason).toMatch(/^no rate: 1 visit/);
    expect(first.outcome.get(flo)!.reason).toBe('no billable work in the period');
    // PER_LINE: each line keeps its own tax, the invoice's is their sum.
    const annFirst = await draftOf(ann);
    expect(annFirst).toMatchObject({ subtotal: 200, tax: 20, total: 220, balanceDue: 220 });
    expect(annFirst.lines.map((l) => [l.sourceId, l.amount, l.taxAmount])).toEqual([[annVisits[0], 100, 10], [annVisits[1], 100, 10]]);
    expect((await draftOf(bob)).lines.map((l) => [l.sourceType, l.amount, l.taxAmount])).toEqual([['FLAT_RATE', 400, 40], ['VISIT', 0, 0]]);

    // The office edits Ann's draft: a dearer first visit and a part of its own.
    const [l1, l2] = annFirst.lines;
    ok(await gql(Q.update, { id: annFirst.id, input: { lines: [
      { id: l1!.id, description: 'Weekly service, gate locked', quantity: 1, unitPrice: 120 },
      { id: l2!.id, description: l2!.description, quantity: 1, unitPrice: 100 },
      { description: 'Filter cartridge', quantity: 1, unitPrice: 30 },
    ] } }));
    // Late work: a visit of Ann's, Bob's after switching to PER_VISIT mid-month, a new customer's.
    const annLate = await visit(ann, '2026-10-20');
    ok(await gql(Q.updateCustomer, { id: bob, input: { billingMethod: 'PER_VISIT' } }));
    const bobLate = await visit(bob, '2026-10-23');
    const hal = await customer('Hal', { service: { rate: 50 } });
    const halVisit = await visit(hal, '2026-10-05');

    const second = await run('2026-10-01', '2026-10-31', [...everyone, hal]);
    expect(second.done).toMatchObject({ status: 'SUCCEEDED', total: 7, succeeded: 3, skipped: 4 });
    expect(second.outcome.get(ann)).toMatchObject({ outcome: 'BILLED', lines: 1, amount: 100 });
    expect(second.outcome.get(bob)).toMatchObject({ outcome: 'BILLED', lines: 1, amount: 0 });
    expect(second.outcome.get(hal)).toMatchObject({ outcome: 'BILLED', lines: 1, amount: 50 });
    expect(second.outcome.get(flo)!.reason).toBe('no billable work in the period');

    // Ann's draft: the office's lines as they left them, the late visit after them, money from all.
    const ann2 = await draftOf(ann);
    expect(ann2.id).toBe(annFirst.id);
    expect(ann2.lines.map((l) => [l.sourceType, l.description, l.amount, l.taxAmount])).toEqual([
      ['VISIT', 'Weekly service, gate locked', 120, 12],
      ['VISIT', 'Service visit', 100, 10],
      ['MANUAL', 'Filter cartridge', 30, 3],
      ['VISIT', 'Service visit', 100, 10],
    ]);
    expect(ann2.lines[3]!.sourceId).toBe(annLate);
    expect(ann2).toMatchObject({ subtotal: 350, tax: 35, total: 385, balanceDue: 385 });
    // October was billed flat: Bob's late visit is in the monthly rate, whatever he is now.
    const bob2 = await draftOf(bob);
    expect(bob2.lines.map((l) => [l.sourceType, l.sourceId, l.amount])).toEqual([
      ['FLAT_RATE', `${bob}/2026-10`, 400], ['VISIT', bobVisit, 0], ['VISIT', bobLate, 0],
    ]);
    expect(bob2.lines[2]!.description).toBe('Service visit (in the monthly rate)');
    expect(bob2).toMatchObject({ subtotal: 400, tax: 40, total: 440 });
    expect(await draftOf(hal)).toMatchObject({ subtotal: 50, tax: 5, total: 55, lines: [{ sourceId: halVisit, amount: 50, taxAmount: 5 }] });

    // Once more: nothing new, nothing changed, no draft left empty.
    const before = await allInvoices(gql);
    const third = await run('2026-10-01', '2026-10-31', [...everyone, hal]);
    expect(third.done).toMatchObject({ succeeded: 0, skipped: 7 });
    expect(await allInvoices(gql)).toEqual(before);
    expect(before.filter((i) => i.status === 'DRAFT')).toHaveLength(3);
  });

  it('chunks of many customers at once, in opposite orders and over an overlapping period, bill every fact once', { timeout: 120_000 }, async () => {
    const truck = ok(await gql(Q.location)).createInventoryLocation.id;
    const chlorine = ok(await gql(Q.item, { input: { name: 'Chlorine', category: 'CHEMICAL', unitPrice: 3, unit: 'gal', locationId: truck, quantity: 1000 } })).createInventoryItem.id;
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    const many: string[] = [];
    for (let i = 0; i < 24; i++) many.push(await customer(`Many ${i}`, i % 4 === 0 ? { billingMethod: 'MONTHLY_FLAT', service: { rate: 60, monthlyRate: 200 } } : { service: { rate: 60 } }));
    const gone = await customer('Gone', { service: { rate: 60 } });
    // October's visits for the October runs, and one in November only the overlapping run bills:
    // whichever of them is first to a late-October fact, the other's draft gets its other lines.
    const visits = many.flatMap((c, i) => ['2026-10-06', '2026-10-27', '2026-11-03'].map((day, w) => ({
      newDocumentState: { id: `chunk-${i}-${w}`, customerId: c, startTime: at(day, 9), endTime: at(day, 10), photos: [] },
    })));
    expect((await pushChanges(server, tech.token, 'services', visits)).status).toBe(200);
    const doses = visits.map((v) => ({ newDocumentState: { id: `dose-${v.newDocumentState.id}`, itemId: chlorine, locationId: truck, toLocationId: null, delta: -1, reason: 'USE', serviceId: v.newDocumentState.id, note: null, dose: null } }));
    expect((await pushChanges(server, tech.token, 'stockMovements', doses)).status).toBe(200);
    ok(await gql(Q.deleteCustomer, { id: gone }));

    const chunk = (ids: string[], start: string, end: string) =>
      store.db.transaction(async (tx) => billCustomers(tx, await billingSettings(tx, orgId), ids, { start, end }, null));
    const [a, b, c] = await Promise.all([
      chunk([...many, gone], '2026-10-01', '2026-10-31'),
      chunk([...many].reverse(), '2026-10-01', '2026-10-31'),
      chunk(many.slice(6), '2026-10-15', '2026-11-15'),
    ]);
    expect(a.at(-1)).toEqual({ customerId: gone, outcome: 'SKIPPED', reason: 'deleted since the run started', invoiceId: null, lines: 0, amount: 0 });
    expect(a.slice(0, -1).map((r) => r.customerId)).toEqual(many);

    const invoices = (await allInvoices(gql)).filter((i) => many.includes(i.customerId));
    const sources = liveSources(invoices);
    // The visits and their doses, and the flat customers' October.
    const billable = visits.map((v) => v.newDocumentState.id).filter((id) => !/^chunk-[0-5]-2$/.test(id)); // the first six are in no run's November
    const expected = [...billable.flatMap((id) => [`VISIT:${id}`, `STOCK_MOVEMENT:dose-${id}`]), ...many.filter((_, i) => i % 4 === 0).map((id) => `FLAT_RATE:${id}/2026-10`)];
    expect(sources.sort()).toEqual(expected.sort());
    // At most one draft per customer and period, none empty, each one's money its lines'.
    const periods = invoices.map((i) => `${i.customerId}/${i.periodStart}`);
    expect(new Set(periods).size).toBe(periods.length);
    for (const invoice of invoices) {
      expect(invoice.lines.length).toBeGreaterThan(0);
      // In cents: the decimals the API answers do not sum exactly as floats.
      const cents = (values: number[]) => values.reduce((sum, v) => sum + Math.round(v * 100), 0);
      expect(Math.round(invoice.subtotal * 100)).toBe(cents(invoice.lines.map((l) => l.amount)));
      expect(Math.round(invoice.tax * 100)).toBe(cents(invoice.lines.map((l) => l.taxAmount!)));
    }
    // What each chunk says it billed is what the drafts hold.
    const billed = [...a, ...b, ...c].filter((r) => r.outcome === 'BILLED');
    expect(billed.reduce((sum, r) => sum + r.lines, 0)).toBe(sources.length);
    for (const customerId of many) expect(billed.some((r) => r.customerId === customerId)).toBe(true);
    // The overlapping run's customers are on two drafts, one of which lost late October to the
    // other run: its money is still its lines' (checked above).
    for (const customerId of many.slice(6)) {
      expect(c.find((r) => r.customerId === customerId)!.outcome).toBe('BILLED');
      expect([...a, ...b].some((r) => r.customerId === customerId && r.outcome === 'BILLED')).toBe(true);
    }
  });
});
