import { describe, expect, it } from 'vitest';
import { provisionOrganization } from '../server/operations/organization.js';
import { todayIn, addDays } from '../server/operations/billing/periods.js';
import { caller, ok, tokenFor } from './support/api.js';
import { applyPaymentThroughStorage } from './support/billing-fixtures.billing.js';
import { startBulk, waitForBulk } from './support/bulk.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, type TestServer } from './support/server.js';
import { pushChanges, serverDocument } from './support/sync.js';

/**
 * Billing through GraphQL, as the office and third parties use it: a month of a small company
 * billed by the month's run (every fact once, whatever runs again), finalizing, voiding, quotes
 * converted, a visit's billingStatus owned by billing, totals to the minor unit, and bad input
 * refused with nothing changed.
 */
const Q = {
  customer: `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`,
  updateCustomer: `mutation($id: ID!, $input: UpdateCustomerInput!) { updateCustomer(id: $id, input: $input) { id } }`,
  quoted: `mutation($c: ID!, $input: UpdateCustomerQuotedPricesInput!) { updateCustomerQuotedPrices(customerId: $c, input: $input) { price } }`,
  type: `mutation($input: CreateServiceTypeInput!) { createServiceType(input: $input) { id } }`,
  tax: `mutation($input: CreateTaxInput!) { createTax(input: $input) { id } }`,
  settings: `mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { invoicePrefix } }`,
  org: `mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }`,
  visit: `mutation($input: CreateServiceInput!) { createService(input: $input) { id } }`,
  updateVisit: `mutation($id: ID!, $input: UpdateServiceInput!) { updateService(id: $id, input: $input) { id billingStatus } }`,
  visitStatus: `query($id: ID!) { infiniteServices(first: 1, selector: {filters: {id: {eq: $id}}}) { edges { node { billingStatus } } } }`,
  location: `mutation { createInventoryLocation(input: {name: "Truck"}) { id } }`,
  item: `mutation($input: CreateInventoryItemInput!) { createInventoryItem(input: $input) { id } }`,
  generate: `mutation($input: GenerateInvoicesInput!) { generateInvoices(input: $input) { id kind status total } }`,
  invoices: `query($filter: InvoiceFilter) { infiniteInvoices(first: 100, filter: $filter) {
    edges { node { id number status origin customerId periodStart periodEnd subtotal tax total amountPaid balanceDue taxRounding issueDate dueDate overdue partlyPaid
      lines { id sourceType sourceId serviceId description quantity unitPrice amount taxRate taxAmount } } } } }`,
  invoice: `query($id: ID!) { invoice(selector: {id: $id}) { id number status subtotal tax total balanceDue taxRounding customer { id lastName }
    lines { id sourceType sourceId description quantity unitPrice amount taxId taxRate taxAmount } } }`,
  create: `mutation($input: CreateInvoiceInput!) { createInvoice(input: $input) { id status number subtotal tax total } }`,
  update: `mutation($id: ID!, $input: UpdateInvoiceInput!) { updateInvoice(id: $id, input: $input) { id status subtotal tax total accountingId notes } }`,
  remove: `mutation($id: ID!) { deleteInvoice(id: $id) { id } }`,
  finalize: `mutation($id: ID!) { finalizeInvoice(id: $id) { id number status issueDate dueDate total balanceDue finalizedAt updatedAt } }`,
  finalizeMany: `mutation($input: FinalizeInvoicesInput!) { finalizeInvoices(input: $input) { id number status } }`,
  void: `mutation($id: ID!, $reason: String!) { voidInvoice(id: $id, reason: $reason) { id number status voidReason } }`,
  quote: `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id number } }`,
  quoteStatus: `mutation($id: ID!, $status: QuoteStatus!) { updateQuote(id: $id, input: {status: $status}) { status } }`,
  convert: `mutation($q: ID!) { convertQuoteToInvoice(quoteId: $q) { id status origin subtotal tax total lines { sourceType sourceId amount } } }`,
};

type Gql = ReturnType<typeof caller>;
type Line = { sourceType: string; sourceId: string | null; serviceId: string | null; description: string; amount: number; unitPrice: number; quantity: number };
type InvoiceRow = { id: string; number: string | null; status: string; customerId: string; subtotal: number; tax: number; total: number; lines: Line[] };

/** Noon in Phoenix (UTC-7 all year) on a date: the visit's day there, whatever the UTC date. */
const at = (date: string, hour = 12) => new Date(`${date}T${String(hour).padStart(2, '0')}:00:00-07:00`).toISOString();

describe.each(engines)('invoices on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let admin: Gql;
  let adminToken: string;

  useTestServer(engine, { organization: 'Billing Pools', server: { worker: { chunkSize: 2 } } }, async (t) => {
    ({ store, server } = t);
    adminToken = t.token;
    admin = caller(server, t.token);
  });

  const run = async (gql: Gql, token: string, periodStart: string, periodEnd: string, customerIds?: string[]) => {
    const op = ok(await gql(Q.generate, { input: { periodStart, periodEnd, customerIds } })).generateInvoices;
    expect(op.kind).toBe('INVOICES_GENERATE');
    const done = await waitForBulk(server, token, op.id);
    const csv = await (await fetch(done.resultUrl)).text();
    return { op: done, csv };
  };
  const all = async (gql: Gql, filter: Record<string, unknown> = {}): Promise<InvoiceRow[]> =>
    ok(await gql(Q.invoices, { filter })).infiniteInvoices.edges.map((e: { node: InvoiceRow }) => e.node);
  const billedSources = (rows: InvoiceRow[]) => rows.filter((i) => i.status !== 'VOID').flatMap((i) => i.lines.filter((l) => l.sourceId).map((l) => `${l.sourceType}:${l.sourceId}`));

  it("bills a month of a small company: every fact once across runs, skipped customers listed with the reason, modes switched mid-month billed once", async () => {
    const gql = admin;
    ok(await gql(Q.org, { input: { timezone: 'America/Phoenix' } }));
    const tax = ok(await gql(Q.tax, { input: { name: 'Sales tax', rate: 8.25 } })).createTax.id;
    ok(await gql(Q.settings, { input: { defaultTaxId: tax, invoicePrefix: 'INV-', invoiceDueDays: 30, chemicalBilling: 'UNIT_PRICE' } }));
    const weekly = ok(await gql(Q.type, { input: { display: 'Weekly service' } })).createServiceType.id;
    const repair = ok(await gql(Q.type, { input: { display: 'Filter clean' } })).createServiceType.id;
    const customer = async (lastName: string, fields: Record<string, unknown>) => ok(await gql(Q.customer, { input: { lastName, ...fields } })).createCustomer.id as string;
    const ann = await customer('Ann', { service: { rate: 100 }, billingMethod: 'PER_VISIT' });
    ok(await gql(Q.quoted, { c: ann, input: { quotedPrices: [{ typeId: repair, price: 150 }] } }));
    const bob = await customer('Bob', { service: { rate: 90, monthlyRate: 400 }, billingMethod: 'MONTHLY_FLAT' });
    const cy = await customer('Cy', { status: 'INACTIVE', service: { rate: 80 } });
    const di = await customer('Di', { readyForInvoice: false, service: { rate: 80 } });
    const ed = await customer('Ed', {});
    const flo = await customer('Flo', { service: { rate: 70 } });
    const gus = await customer('Gus', { billingMethod: 'MONTHLY_FLAT', service: { rate: 70 } });
    const visit = async (customerId: string, date: string, typeId = weekly, done = true) =>
      ok(await gql(Q.visit, { input: { customerId, typeId, startTime: at(date, 9), endTime: done ? at(date, 10) : null } })).createService.id as string;

    const annVisits = [await visit(ann, '2026-10-01'), await visit(ann, '2026-10-08', repair), await visit(ann, '2026-10-31')];
    await visit(ann, '2026-10-20', weekly, false); // not completed: not billable
    await visit(ann, '2026-11-01'); // after the period
    const bobVisits = [await visit(bob, '2026-10-02'), await visit(bob, '2026-10-09')];
    await visit(cy, '2026-10-03');
    await visit(di, '2026-10-03');
    await visit(ed, '2026-10-03');
    await visit(gus, '2026-10-13');
    // A dose on Ann's first visit, pushed by the technician's phone: 2 units at 3.50.
    const truck = ok(await gql(Q.location)).createInventoryLocation.id;
    const chlorine = ok(await gql(Q.item, { input: { name: 'Liquid chlorine', category: 'CHEMICAL', unitPrice: 3.5, unit: 'gal', locationId: truck, quantity: 50 } })).createInventoryItem.id;
    const tech = await tokenFor(server, adminToken, 'TECHNICIAN');
    const use = { id: 'dose-1', itemId: chlorine, locationId: truck, toLocationId: null, delta: -2, reason: 'USE', serviceId: annVisits[0], note: null, dose: null };
    expect((await pushChanges(server, tech.token, 'stockMovements', [{ newDocumentState: use }])).status).toBe(200);

    const first = await run(gql, adminToken, '2026-10-01', '2026-10-31');
    expect(first.op).toMatchObject({ status: 'SUCCEEDED', total: 7, succeeded: 2, skipped: 5 });
    const lines = first.csv.trim().split('\n');
    expect(lines[0]).toBe('customerId,customerName,outcome,reason,invoiceId,lines,amount');
    const row = (id: string) => lines.find((l) => l.startsWith(id))!;
    expect(row(ann)).toMatch(/,Ann,BILLED,,[\w-]+,4,357$/);
    expect(row(bob)).toMatch(/,Bob,BILLED,,[\w-]+,3,400$/);
    expect(row(cy)).toContain('SKIPPED,inactive');
    expect(row(di)).toContain('SKIPPED,not ready for invoice');
    expect(row(ed)).toContain('SKIPPED,no rate');
    expect(row(flo)).toContain('SKIPPED,no billable work in the period');
    expect(row(gus)).toContain('SKIPPED,no rate: billingMethod is MONTHLY_FLAT and service.monthlyRate is not set');

    let drafts = await all(gql, { status: 'DRAFT' });
    expect(drafts).toHaveLength(2);
    const annDraft = drafts.find((d) => d.customerId === ann)!;
    // 100 + 150 (the quoted price of a filter clean) + 100 + 2 x 3.50 = 357; 8.25 % of it is 29.4525.
    expect(annDraft).toMatchObject({ subtotal: 357, tax: 29.45, total: 386.45, number: null, taxRounding: 'PER_INVOICE' });
    expect(annDraft.lines.map((l) => [l.sourceType, l.description, l.amount])).toEqual([
      ['VISIT', 'Weekly service', 100],
      ['STOCK_MOVEMENT', 'Liquid chlorine (gal)', 7],
      ['VISIT', 'Filter clean', 150],
      ['VISIT', 'Weekly service', 100],
    ]);
    const bobDraft = drafts.find((d) => d.customerId === bob)!;
    expect(bobDraft.lines.map((l) => [l.sourceType, l.amount])).toEqual([['FLAT_RATE', 400], ['VISIT', 0], ['VISIT', 0]]);
    expect(bobDraft.lines[0]!.description).toBe('Monthly service, October 2026');

    // The same run again bills nothing more, and changes nothing.
    const again = await run(gql, adminToken, '2026-10-01', '2026-10-31');
    expect(again.op).toMatchObject({ succeeded: 0, skipped: 7 });
    expect(await all(gql, { status: 'DRAFT' })).toEqual(drafts);

    // Bob moves to PER_VISIT mid-month; a visit synced late in October follows how October was billed (flat).
    ok(await gql(Q.updateCustomer, { id: bob, input: { billingMethod: 'PER_VISIT' } }));
    const late = await visit(bob, '2026-10-23');
    await run(gql, adminToken, '2026-10-01', '2026-10-31', [bob]);
    drafts = await all(gql, { status: 'DRAFT' });
    expect(drafts.find((d) => d.customerId === bob)!.lines.map((l) => [l.sourceType, l.sourceId, l.amount])).toEqual([
      ['FLAT_RATE', `${bob}/2026-10`, 400], ['VISIT', bobVisits[0], 0], ['VISIT', bobVisits[1], 0], ['VISIT', late, 0],
    ]);
    // November is billed the new way: per visit, no flat rate.
    const nov = await visit(bob, '2026-11-06');
    await run(gql, adminToken, '2026-11-01', '2026-11-30', [bob]);
    const bobNov = (await all(gql, { status: 'DRAFT', periodStart: '2026-11-01' }))[0]!;
    expect(bobNov.lines.map((l) => [l.sourceType, l.sourceId, l.amount])).toEqual([['VISIT', nov, 90]]);

    // Every fact is on exactly one line.
    const sources = billedSources(await all(gql));
    expect(new Set(sources).size).toBe(sources.length);
    expect(sources).toHaveLength(4 + 4 + 1);

    // Finalizing: numbered, issued today in Phoenix, due 30 days later; the visits say INVOICED.
    const fin = ok(await gql(Q.finalize, { id: annDraft.id })).finalizeInvoice;
    const today = todayIn('America/Phoenix');
    expect(fin).toMatchObject({ number: 'INV-0001', status: 'OPEN', issueDate: today, dueDate: addDays(today, 30), balanceDue: 386.45 });
    const twice = ok(await gql(Q.finalize, { id: annDraft.id })).finalizeInvoice;
    expect(twice).toEqual(fin);
    for (const id of annVisits) expect(ok(await gql(Q.visitStatus, { id })).infiniteServices.edges[0].node.billingStatus).toBe('INVOICED');

    // billingStatus of a billed visit is billing's: refused by hand and from a device, nothing changed.
    const refused = await gql(Q.updateVisit, { id: annVisits[0], input: { billingStatus: 'READY' } });
    expect(errorCodes(refused)).toEqual(['BAD_USER_INPUT']);
    expect(refused.errors![0]!.message).toContain('billingStatus');
    expect(errorCodes(await gql(Q.updateVisit, { id: bobVisits[0], input: { billingStatus: 'INVOICED' } }))).toEqual(['BAD_USER_INPUT']);
    const bulk = await startBulk(server, adminToken, { kind: 'SERVICES_UPDATE', selection: { ids: [...annVisits, late] }, patch: { billingStatus: 'READY' } });
    expect(await waitForBulk(server, adminToken, bulk.body.id)).toMatchObject({ status: 'PARTIAL', succeeded: 1, failed: 3 });
    expect(ok(await gql(Q.visitStatus, { id: annVisits[2] })).infiniteServices.edges[0].node.billingStatus).toBe('INVOICED');
    expect((await startBulk(server, adminToken, { kind: 'SERVICES_UPDATE', selection: { ids: [late] }, patch: { billingStatus: 'INVOICED' } })).status).toBe(400);

    // An OPEN invoice's lines never change.
    const edit = await gql(Q.update, { id: fin.id, input: { lines: [{ description: 'Cheaper', quantity: 1, unitPrice: 1 }] } });
    expect(errorCodes(edit)).toEqual(['CONFLICT']);
    expect(ok(await gql(Q.invoice, { id: fin.id })).invoice).toMatchObject({ total: 386.45, status: 'OPEN' });
    expect(ok(await gql(Q.update, { id: fin.id, input: { accountingId: 'QB-17' } })).updateInvoice.accountingId).toBe('QB-17');

    // Voided: its work is free again, its visits NOT_BILLED, and the next run bills them on a new draft.
    const voided = ok(await gql(Q.void, { id: fin.id, reason: 'Wrong rate' })).voidInvoice;
    expect(voided).toMatchObject({ number: 'INV-0001', status: 'VOID', voidReason: 'Wrong rate' });
    expect(ok(await gql(Q.visitStatus, { id: annVisits[0] })).infiniteServices.edges[0].node.billingStatus).toBe('NOT_BILLED');
    await run(gql, adminToken, '2026-10-01', '2026-10-31', [ann]);
    const reissued = (await all(gql, { status: 'DRAFT', customerId: ann }))[0]!;
    expect(reissued.total).toBe(386.45);
    const live = billedSources(await all(gql));
    expect(new Set(live).size).toBe(live.length);

    // From an office device (it holds recent work): a billed visit's billingStatus pushed back is refused.
    const recent = addDays(today, -1);
    const flosVisit = await visit(flo, recent);
    await run(gql, adminToken, addDays(today, -3), today, [flo]);
    const flosDraft = (await all(gql, { status: 'DRAFT', customerId: flo }))[0]!;
    ok(await gql(Q.finalize, { id: flosDraft.id }));
    const officeDevice = await tokenFor(server, adminToken, 'OFFICE');
    const master = await serverDocument(server, officeDevice.token, 'services', flosVisit);
    expect(master.billingStatus).toBe('INVOICED');
    const pushed = await pushChanges(server, officeDevice.token, 'services', [{ assumedMasterState: master, newDocumentState: { ...master, billingStatus: 'NOT_BILLED' } }]);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    expect(JSON.stringify(pushed.body)).toContain('billingStatus');
    expect(ok(await gql(Q.visitStatus, { id: flosVisit })).infiniteServices.edges[0].node.billingStatus).toBe('INVOICED');
  });

  it('numbers have no gaps: a deleted draft takes none, 20 finalizations at once give 20 consecutive numbers', async () => {
    const { organization, token } = await provisionOrganization(store.db, { name: 'Numbered Pools' });
    const gql = caller(server, token);
    ok(await gql(Q.settings, { input: { invoicePrefix: 'N-' } }));
    const c = ok(await gql(Q.customer, { input: { lastName: 'Numbers' } })).createCustomer.id;
    const draft = async () => ok(await gql(Q.create, { input: { customerId: c, lines: [{ description: 'Work', quantity: 1, unitPrice: 10 }] } })).createInvoice.id as string;
    const doomed = await draft();
    ok(await gql(Q.remove, { id: doomed }));
    expect(errorCodes(await gql(Q.invoice, { id: doomed }))).toEqual(['NOT_FOUND']);
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push(await draft());
    const done = await Promise.all(ids.map((id) => gql(Q.finalize, { id })));
    const numbers = done.map((r) => ok(r).finalizeInvoice.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => `N-${String(i + 1).padStart(4, '0')}`));
    // A finalized invoice cannot be deleted; the rest finalize all at once.
    expect(errorCodes(await gql(Q.remove, { id: ids[0] }))).toEqual(['CONFLICT']);
    const more = [await draft(), await draft()];
    const finalized = ok(await gql(Q.finalizeMany, { input: { all: true } })).finalizeInvoices;
    expect(finalized.map((i: { id: string; number: string }) => [i.id, i.number])).toEqual([[more[0], 'N-0021'], [more[1], 'N-0022']]);
    void organization;
  });

  it('a batch of drafts, an OPEN invoice and refused ones: the good drafts finalized with consecutive numbers in the order given, the error naming the refused', async () => {
    const { token } = await provisionOrganization(store.db, { name: 'Batch Pools' });
    const gql = caller(server, token);
    ok(await gql(Q.settings, { input: { invoicePrefix: 'B-' } }));
    const c = ok(await gql(Q.customer, { input: { lastName: 'Batch' } })).createCustomer.id;
    const draft = async (lines: { description: string; quantity: number; unitPrice: number }[]) =>
      ok(await gql(Q.create, { input: { customerId: c, lines } })).createInvoice.id as string;
    const work = (price: number) => [{ description: 'Work', quantity: 1, unitPrice: price }];
    const open = await draft(work(50));
    const openBefore = ok(await gql(Q.finalize, { id: open })).finalizeInvoice;
    expect(openBefore.number).toBe('B-0001');
    const voided = await draft(work(5));
    ok(await gql(Q.finalize, { id: voided }));
    ok(await gql(Q.void, { id: voided, reason: 'Wrong customer' }));
    const [good1, empty, good2, negative, free, good3] = [
      await draft(work(10)),
      await draft([]),
      await draft(work(20)),
      await draft(work(-5)),
      await draft([{ description: 'Courtesy visit', quantity: 1, unitPrice: 0 }]),
      await draft(work(30)),
    ];

    const answer = await gql(Q.finalizeMany, { input: { ids: [good3, empty, open, good1, voided, negative, free, good2] } });
    expect(errorCodes(answer)).toEqual(['BAD_USER_INPUT']);
    const message = answer.errors![0]!.message;
    for (const id of [empty, negative]) expect(message).toContain(id);
    expect(message).toContain('B-0002 is VOID');
    for (const id of [good1, good2, good3, free, open]) expect(message).not.toContain(id);

    // The good ones stay finalized, numbered in the order given after the invoices before them.
    const row = async (id: string) => ok(await gql(Q.invoice, { id })).invoice as { number: string | null; status: string; total: number };
    expect(await row(good3)).toMatchObject({ number: 'B-0003', status: 'OPEN', total: 30 });
    expect(await row(good1)).toMatchObject({ number: 'B-0004', status: 'OPEN', total: 10 });
    expect(await row(free)).toMatchObject({ number: 'B-0005', status: 'PAID', total: 0 });
    expect(await row(good2)).toMatchObject({ number: 'B-0006', status: 'OPEN', total: 20 });
    for (const id of [empty, negative]) expect(await row(id)).toMatchObject({ number: null, status: 'DRAFT' });
    expect(await row(voided)).toMatchObject({ number: 'B-0002', status: 'VOID' });
    // The OPEN one is unchanged, and answered as it is when asked alone.
    expect(ok(await gql(Q.finalize, { id: open })).finalizeInvoice).toEqual(openBefore);
    // The refused drafts, fixed, take the next numbers: none was spent on them.
    ok(await gql(Q.update, { id: negative, input: { lines: work(7) } }));
    const next = ok(await gql(Q.finalizeMany, { input: { ids: [negative, good1] } })).finalizeInvoices;
    expect(next.map((i: { id: string; number: string }) => [i.id, i.number])).toEqual([[negative, 'B-0007'], [good1, 'B-0004']]);
    // More ids than a call takes are refused whole.
    const tooMany = Array.from({ length: 1001 }, (_, i) => `id-${i}`);
    expect(errorCodes(await gql(Q.finalizeMany, { input: { ids: tooMany } }))).toEqual(['BAD_USER_INPUT']);
    // One refused alone is told as it always was.
    const alone = await gql(Q.finalize, { id: empty });
    expect(errorCodes(alone)).toEqual(['BAD_USER_INPUT']);
    expect(alone.errors![0]!.message).toBe(`Invoice ${empty} has no lines: add some, or delete the draft`);
  });

  const MONEY_CASES = [
    {
      currency: 'USD',
      rate: 5,
      lines: [0.1, 0.1, 0.1].map((p) => ({ description: 'Part', quantity: 1, unitPrice: p })).concat([{ description: 'Tabs', quantity: 3, unitPrice: 19.99 }]),
      // 60.27 x 5 % = 3.0135; per line: 0.005 -> 0.01 (three times) and 59.97 x 5 % = 2.9985 -> 3.00.
      PER_INVOICE: { subtotal: 60.27, tax: 3.01, total: 63.28 },
      PER_LINE: { subtotal: 60.27, tax: 3.03, total: 63.3, lineTax: [0.01, 0.01, 0.01, 3] },
    },
    {
      currency: 'JPY',
      rate: 10,
      // 1250.5 yen is 1251 (halves away from zero): 2 x 1251 = 2502.
      lines: [{ description: 'Visit', quantity: 1, unitPrice: 105 }, { description: 'Visit', quantity: 1, unitPrice: 105 }, { description: 'Salt', quantity: 2, unitPrice: 1250.5 }],
      // 2712 x 10 % = 271.2; per line: 10.5 -> 11, 10.5 -> 11, 250.2 -> 250.
      PER_INVOICE: { subtotal: 2712, tax: 271, total: 2983 },
      PER_LINE: { subtotal: 2712, tax: 272, total: 2984, lineTax: [11, 11, 250] },
    },
    {
      currency: 'KWD',
      rate: 5,
      lines: [{ description: 'Service', quantity: 1, unitPrice: 12.345 }, ...[0.011, 0.011, 0.011].map((p) => ({ description: 'Washer', quantity: 1, unitPrice: p }))],
      // 12.378 x 5 % = 0.6189; per line: 0.61725 -> 0.617 and 0.00055 -> 0.001 (three times).
      PER_INVOICE: { subtotal: 12.378, tax: 0.619, total: 12.997 },
      PER_LINE: { subtotal: 12.378, tax: 0.62, total: 12.998, lineTax: [0.617, 0.001, 0.001, 0.001] },
    },
  ] as const;

  it.each(MONEY_CASES)('totals to the minor unit in $currency, per invoice and per line, kept when the rule changes', async (c) => {
    const { token } = await provisionOrganization(store.db, { name: `Money ${c.currency}`, currency: c.currency });
    const gql = caller(server, token);
    const tax = ok(await gql(Q.tax, { input: { name: 'VAT', rate: c.rate } })).createTax.id;
    ok(await gql(Q.settings, { input: { defaultTaxId: tax } }));
    const customer = ok(await gql(Q.customer, { input: { lastName: c.currency } })).createCustomer.id;
    const perInvoice = ok(await gql(Q.create, { input: { customerId: customer, lines: c.lines } })).createInvoice;
    expect(perInvoice).toMatchObject(c.PER_INVOICE);
    ok(await gql(Q.settings, { input: { taxRounding: 'PER_LINE' } }));
    const perLine = ok(await gql(Q.create, { input: { customerId: customer, lines: c.lines } })).createInvoice;
    expect(perLine).toMatchObject({ subtotal: c.PER_LINE.subtotal, tax: c.PER_LINE.tax, total: c.PER_LINE.total });
    const read = ok(await gql(Q.invoice, { id: perLine.id })).invoice;
    expect(read.taxRounding).toBe('PER_LINE');
    expect(read.lines.map((l: { taxAmount: number }) => l.taxAmount)).toEqual(c.PER_LINE.lineTax);
    // The first invoice keeps its rounding: finalized after the rule changed, its total is the same.
    expect(ok(await gql(Q.finalize, { id: perInvoice.id })).finalizeInvoice.total).toBe(c.PER_INVOICE.total);
  });

  it('bad input gets a clear error and changes nothing', async () => {
    const { organization, token } = await provisionOrganization(store.db, { name: 'Careful Pools' });
    const gql = caller(server, token);
    const customer = ok(await gql(Q.customer, { input: { lastName: 'Careful' } })).createCustomer.id;
    const bad = await gql(Q.generate, { input: { periodStart: '2026-10-31', periodEnd: '2026-10-01' } });
    expect(errorCodes(bad)).toEqual(['BAD_USER_INPUT']);
    expect(bad.errors![0]!.message).toContain('before periodStart');
    expect(errorCodes(await gql(Q.generate, { input: { periodStart: '2026-02-30', periodEnd: '2026-03-01' } }))).toEqual(['BAD_USER_INPUT']);

    // Voiding an invoice with a payment applied: refused until the payment is reversed.
    const id = ok(await gql(Q.create, { input: { customerId: customer, lines: [{ description: 'Work', quantity: 1, unitPrice: 100 }] } })).createInvoice.id;
    const fin = ok(await gql(Q.finalize, { id })).finalizeInvoice;
    await applyPaymentThroughStorage(store.db, organization.id, id, 40);
    const refused = await gql(Q.void, { id, reason: 'Mistake' });
    expect(errorCodes(refused)).toEqual(['CONFLICT']);
    expect(refused.errors![0]!.message).toMatch(/payments applied: reverse them/);
    expect(ok(await gql(Q.invoices, {})).infiniteInvoices.edges[0].node).toMatchObject({ id, status: 'OPEN', amountPaid: 40, balanceDue: 60, partlyPaid: true, overdue: false });
    expect(ok(await gql(Q.finalize, { id })).finalizeInvoice).toEqual({ ...fin, balanceDue: 60, updatedAt: expect.any(String) });

    // Quotes: only ACCEPTED ones, their lines once.
    const quote = ok(await gql(Q.quote, { input: { customerId: customer, title: 'New pump', lineItems: [{ description: 'Pump', quantity: 1, unitPrice: 500 }, { description: 'Labor', quantity: 2, unitPrice: 80 }] } })).createQuote;
    const notYet = await gql(Q.convert, { q: quote.id });
    expect(errorCodes(notYet)).toEqual(['CONFLICT']);
    expect(notYet.errors![0]!.message).toContain('ACCEPTED');
    expect(await all(gql, { status: 'DRAFT' })).toEqual([]);
    ok(await gql(Q.quoteStatus, { id: quote.id, status: 'SENT' }));
    ok(await gql(Q.quoteStatus, { id: quote.id, status: 'ACCEPTED' }));
    const converted = ok(await gql(Q.convert, { q: quote.id })).convertQuoteToInvoice;
    expect(converted).toMatchObject({ status: 'DRAFT', origin: 'QUOTE', subtotal: 660, total: 660 });
    expect(converted.lines.map((l: Line) => l.sourceType)).toEqual(['QUOTE_LINE', 'QUOTE_LINE']);
    expect(ok(await gql(Q.convert, { q: quote.id })).convertQuoteToInvoice.id).toBe(converted.id);

    // A visit pushed new with INVOICED is kept, without the flag: no invoice holds it.
    const office = await tokenFor(server, token, 'OFFICE');
    const fresh = { id: 'pushed-invoiced-visit', customerId: customer, billingStatus: 'INVOICED', startTime: new Date().toISOString(), photos: [] };
    expect((await pushChanges(server, office.token, 'services', [{ newDocumentState: fresh }])).status).toBe(200);
    expect(ok(await gql(Q.visitStatus, { id: fresh.id })).infiniteServices.edges[0].node.billingStatus).toBeNull();
    // Only ADMIN and API tokens link an invoice to the accounting system.
    expect(errorCodes(await caller(server, office.token)(Q.update, { id, input: { accountingId: 'QB-1' } }))).toEqual(['FORBIDDEN']);

    // Roles: a technician reads and bills nothing here.
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    expect(errorCodes(await caller(server, tech.token)(Q.invoices, {}))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await caller(server, tech.token)(Q.finalize, { id: converted.id }))).toEqual(['FORBIDDEN']);
  });
});
