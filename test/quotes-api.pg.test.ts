import { describe, expect, it } from 'vitest';
import { caller, ok, tokenFor } from './support/api.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, newOrganization, type TestServer } from './support/server.js';

/** The spec's quote operations, sent as a third party would, with the server's pricing rules. */
const CREATE_CUSTOMER = `mutation CreateCustomer($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const CREATE_TAX = `mutation CreateTax($input: CreateTaxInput!) { createTax(input: $input) { id rate } }`;
const SET_DEFAULT_TAX = `mutation UpdateOrganizationSettings($input: UpdateOrganizationSettingsInput!) {
  updateOrganizationSettings(input: $input) { defaultTaxId quotePrefix } }`;
const CREATE_QUOTE = `mutation CreateQuote($input: CreateQuoteInput!) {
  createQuote(input: $input) {
    id number title status subtotal tax total validUntil acceptedAt notes terms pdfUrl createdAt updatedAt
    customer { id lastName }
    lineItems { id description quantity unitPrice amount }
    photos { id url caption }
  } }`;
const UPDATE_QUOTE = `mutation UpdateQuote($id: ID!, $input: UpdateQuoteInput!) {
  updateQuote(id: $id, input: $input) { id status acceptedAt updatedAt title subtotal tax total } }`;
const QUOTE = `query Quote($selector: QuoteSelector!) {
  quote(selector: $selector) { id number title status subtotal tax total customer { id } lineItems { amount } } }`;
const INFINITE_QUOTES = `query InfiniteQuotes($first: Int!, $after: String, $filter: QuoteFilter) {
  infiniteQuotes(first: $first, after: $after, filter: $filter) {
    edges { node { id number title status total validUntil customer { id lastName } } cursor }
    pageInfo { hasNextPage endCursor } } }`;

describe.each(engines)('quotes on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let admin: ReturnType<typeof caller>;
  let adminToken: string;
  let customerId: string;
  let taxId: string;

  useTestServer(engine, { organization: 'Quote Pools' }, async (t) => {
    ({ store, server } = t);
    adminToken = t.token;
    admin = caller(server, t.token);
    customerId = ok(await admin(CREATE_CUSTOMER, { input: { firstName: 'Ann', lastName: 'Lee' } })).createCustomer.id;
    taxId = ok(await admin(CREATE_TAX, { input: { name: 'Sales tax', rate: 8.25 } })).createTax.id;
  });

  const newQuote = async (input: Record<string, unknown> = {}) =>
    ok(await admin(CREATE_QUOTE, { input: { customerId, title: 'Pump repair', ...input } })).createQuote;

  it('createQuote numbers the quote, computes amounts, subtotal, tax and total in cents, and starts DRAFT', async () => {
    const quote = await newQuote({
      taxId,
      validUntil: '2026-12-31T23:59:59Z',
      notes: 'Includes labor',
      lineItems: [
        { description: 'Pump motor', quantity: 1, unitPrice: 412.99 },
        { description: 'Labor (hours)', quantity: 2.5, unitPrice: 95.1 },
        { description: 'O-rings', quantity: 3, unitPrice: 0.335 },
      ],
    });
    expect(quote).toMatchObject({
      number: expect.stringMatching(/^Q-\d{4}$/),
      status: 'DRAFT',
      acceptedAt: null,
      pdfUrl: expect.stringContaining('/quote-pdfs/'),
      photos: [],
      validUntil: '2026-12-31T23:59:59.000Z',
      customer: { id: customerId, lastName: 'Lee' },
    });
    // 0.335 is 34 cents a piece (halves round away from zero): 3 x 0.34 = 1.02.
    expect(quote.lineItems.map((l: { amount: number }) => l.amount)).toEqual([412.99, 237.75, 1.02]);
    expect(quote.subtotal).toBe(651.76);
    expect(quote.tax).toBe(53.77); // 651.76 x 8.25 % = 53.7702
    expect(quote.total).toBe(705.53);
    expect(quote.lineItems.every((l: { id: string }) => l.id)).toBe(true);
  });

  it('numbers increase per organization and are never reused; the default tax applies when taxId is omitted', async () => {
    ok(await admin(SET_DEFAULT_TAX, { input: { defaultTaxId: taxId, quotePrefix: 'EST-' } }));
    const a = await newQuote({ lineItems: [{ description: 'Cleaning', quantity: 1, unitPrice: 100 }] });
    const b = await newQuote();
    expect(a.number).toMatch(/^EST-\d{4}$/);
    expect(Number(b.number.slice(4))).toBe(Number(a.number.slice(4)) + 1);
    expect(a.tax).toBe(8.25);
    expect(a.total).toBe(108.25);

    const other = await newOrganization(store.db, 'Other Pools');
    const otherAdmin = caller(server, other.token);
    const otherCustomer = ok(await otherAdmin(CREATE_CUSTOMER, { input: { lastName: 'Ng' } })).createCustomer.id;
    const first = ok(await otherAdmin(CREATE_QUOTE, { input: { customerId: otherCustomer, title: 'x' } })).createQuote;
    expect(first.number).toBe('Q-0001');
  });

  it('updateQuote walks DRAFT -> SENT -> ACCEPTED, stamping acceptedAt and moving updatedAt', async () => {
    const quote = await newQuote();
    const sent = ok(await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'SENT' } })).updateQuote;
    expect(sent).toMatchObject({ status: 'SENT', acceptedAt: null });
    expect(sent.updatedAt > quote.updatedAt).toBe(true);
    const before = Date.now();
    const accepted = ok(await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'ACCEPTED' } })).updateQuote;
    expect(accepted.status).toBe('ACCEPTED');
    expect(Date.parse(accepted.acceptedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(accepted.updatedAt > sent.updatedAt).toBe(true);
  });

  it('refuses illegal transitions, naming both states, and changes nothing', async () => {
    const quote = await newQuote();
    const res = await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'ACCEPTED' } });
    expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
    expect(res.errors![0]!.message).toContain('DRAFT');
    expect(res.errors![0]!.message).toContain('ACCEPTED');
    ok(await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'SENT' } }));
    ok(await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'DECLINED' } }));
    const again = await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'SENT' } });
    expect(again.errors![0]!.message).toMatch(/DECLINED to SENT/);
    expect(ok(await admin(QUOTE, { selector: { id: quote.id } })).quote.status).toBe('DECLINED');
  });

  it('DRAFT quotes may be edited and are re-priced; other states may not be edited', async () => {
    const quote = await newQuote({ taxId: null });
    const edited = ok(
      await admin(UPDATE_QUOTE, {
        id: quote.id,
        input: { title: 'Heater install', lineItems: [{ description: 'Heater', quantity: 1, unitPrice: 2000 }] },
      }),
    ).updateQuote;
    // The organization default tax (8.25 %) applied at creation stays with the quote.
    expect(edited).toMatchObject({ title: 'Heater install', subtotal: 2000, tax: 165, total: 2165 });
    ok(await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'SENT' } }));
    const res = await admin(UPDATE_QUOTE, { id: quote.id, input: { title: 'Changed after sending' } });
    expect(errorCodes(res)).toEqual(['BAD_USER_INPUT']);
    expect(res.errors![0]!.message).toMatch(/only DRAFT quotes can be edited/);
    expect(ok(await admin(QUOTE, { selector: { id: quote.id } })).quote.title).toBe('Heater install');
  });

  it('infiniteQuotes pages newest first and narrows by status and customer together', async () => {
    const otherCustomer = ok(await admin(CREATE_CUSTOMER, { input: { lastName: 'Park' } })).createCustomer.id;
    const mine = [await newQuote({ customerId: otherCustomer }), await newQuote({ customerId: otherCustomer }), await newQuote({ customerId: otherCustomer })];
    ok(await admin(UPDATE_QUOTE, { id: mine[1]!.id, input: { status: 'SENT' } }));

    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: any = ok(await admin(INFINITE_QUOTES, { first: 2, after, filter: { customerId: otherCustomer } })).infiniteQuotes;
      seen.push(...page.edges.map((e: any) => e.node.id));
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(mine.map((q) => q.id).reverse());

    const sent = ok(await admin(INFINITE_QUOTES, { first: 10, filter: { customerId: otherCustomer, status: 'SENT' } })).infiniteQuotes;
    expect(sent.edges.map((e: any) => e.node.id)).toEqual([mine[1]!.id]);
    expect(sent.edges[0].node.customer.lastName).toBe('Park');
  });

  it('rejects bad input with clear errors and stores nothing', async () => {
    const count = async () => (await store.db.query<{ n: number }>('select count(*)::int8 as n from quotes')).rows[0]!.n;
    const before = await count();
    const bad = [
      { customerId, title: '' },
      { customerId, title: 'x', lineItems: [{ description: 'a', quantity: 0, unitPrice: 1 }] },
      { customerId, title: 'x', lineItems: [{ description: 'a', quantity: 1, unitPrice: -5 }] },
      { customerId, title: 'x', taxId: 'no-such-tax' },
      { customerId, title: 'x', unknownField: 1 },
    ];
    for (const input of bad) expect(errorCodes(await admin(CREATE_QUOTE, { input }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await admin(CREATE_QUOTE, { input: { customerId: 'missing', title: 'x' } }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await admin(UPDATE_QUOTE, { id: 'x', input: { status: 'BOGUS' } }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await admin(INFINITE_QUOTES, { first: 101 }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await admin(INFINITE_QUOTES, { first: 0 }))).toEqual(['BAD_USER_INPUT']);
    expect(errorCodes(await admin(INFINITE_QUOTES, { first: 5, after: 'not-a-cursor' }))).toEqual(['BAD_USER_INPUT']);
    expect(await count()).toBe(before);
  });

  it('another organization’s quote is NOT_FOUND; a technician changes only quotes they created', async () => {
    const quote = await newQuote();
    const other = await newOrganization(store.db, 'Rival Pools');
    const rival = caller(server, other.token);
    expect(errorCodes(await rival(QUOTE, { selector: { id: quote.id } }))).toEqual(['NOT_FOUND']);
    expect(errorCodes(await rival(UPDATE_QUOTE, { id: quote.id, input: { status: 'SENT' } }))).toEqual(['NOT_FOUND']);
    expect(ok(await rival(INFINITE_QUOTES, { first: 50 })).infiniteQuotes.edges).toEqual([]);
    const rivalCursor = ok(await admin(INFINITE_QUOTES, { first: 1 })).infiniteQuotes.pageInfo.endCursor;
    expect(errorCodes(await rival(INFINITE_QUOTES, { first: 1, after: rivalCursor }))).toEqual(['BAD_USER_INPUT']);

    const tech = caller(server, (await tokenFor(server, adminToken, 'TECHNICIAN')).token);
    expect(errorCodes(await tech(UPDATE_QUOTE, { id: quote.id, input: { title: 'Mine now' } }))).toEqual(['FORBIDDEN']);
    const own = ok(await tech(CREATE_QUOTE, { input: { customerId, title: 'Field estimate' } })).createQuote;
    expect(ok(await tech(UPDATE_QUOTE, { id: own.id, input: { title: 'Field estimate, revised' } })).updateQuote.title).toBe(
      'Field estimate, revised',
    );
  });
});
