import { describe, expect, it } from 'vitest';
import { caller, ok, tokenFor } from './support/api.js';
import { openInvoice, storedInvoice } from './support/billing-fixtures.payments.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import { errorCodes, newOrganization, type TestServer } from './support/server.js';

/** The payment operations as a third party (and a technician's phone) call them over GraphQL. */
const CREATE_CUSTOMER = `mutation CreateCustomer($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const RECORD_PAYMENT = `mutation RecordPayment($input: RecordPaymentInput!) {
  recordPayment(input: $input) {
    id kind amount currency method reference receivedAt invoiceIds unapplied createdById
    customer { id lastName }
    applications { amount invoice { id status balanceDue } payment { id } }
  } }`;
const REVERSE_PAYMENT = `mutation ReversePayment($id: ID!, $reason: String!) {
  reversePayment(id: $id, reason: $reason) { id kind amount reversesPaymentId reason applications { amount invoice { id status } } } }`;
const PAYMENT = `query Payment($id: ID!) { payment(selector: {id: $id}) { id amount unapplied reversedBy { id } } }`;
const PAYMENTS = `query Payments($first: Int!, $after: String, $filter: PaymentFilter) {
  infinitePayments(first: $first, after: $after, filter: $filter) { edges { node { id amount kind } } pageInfo { hasNextPage endCursor } } }`;
const BALANCES = `query Balances($id: ID!) {
  infiniteCustomers(first: 1, selector: {filters: {id: {eq: $id}}}) { edges { node { id balanceDue creditBalance } } } }`;
const STATEMENT = `query Statement($customerId: ID!, $from: Date!, $to: Date!) {
  customerStatement(customerId: $customerId, from: $from, to: $to) {
    customer { id } from to currency openingBalance invoiced paid closingBalance
    lines { date kind invoiceId paymentId reference method amount balance } } }`;
const CREATE_INVOICE = `mutation CreateInvoice($input: CreateInvoiceInput!) { createInvoice(input: $input) { id } }`;
const FINALIZE_INVOICE = `mutation FinalizeInvoice($id: ID!) {
  finalizeInvoice(id: $id) { id status total amountPaid balanceDue applications { amount payment { id } } } }`;
const VOID_INVOICE = `mutation VoidInvoice($id: ID!, $reason: String!) { voidInvoice(id: $id, reason: $reason) { id status amountPaid } }`;
const AGING = `query Aging($asOf: Date) {
  receivablesAging(asOf: $asOf) {
    asOf currency
    customers { customer { id } customerName buckets { current days1to30 days31to60 days61to90 over90 total } }
    totals { current days1to30 days31to60 days61to90 over90 total } } }`;

describe.each(engines)('payments over GraphQL on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let orgId: string;
  let adminToken: string;
  let admin: ReturnType<typeof caller>;

  useTestServer(engine, { organization: 'Paying Pools' }, async (t) => {
    ({ store, server } = t);
    orgId = t.org.id;
    adminToken = t.token;
    admin = caller(server, t.token);
  });

  const newCustomer = async (as: ReturnType<typeof caller>, input: Record<string, unknown>) =>
    ok(await as(CREATE_CUSTOMER, { input })).createCustomer.id as string;
  const balances = async (id: string, as = admin) => ok(await as(BALANCES, { id })).infiniteCustomers.edges[0].node;
  const paymentsOf = async (customerId: string) =>
    ok(await admin(PAYMENTS, { first: 100, filter: { customerId } })).infinitePayments.edges.map((e: { node: unknown }) => e.node);

  it('records a payment, applies it oldest first, keeps the rest as credit, and the customer reads what is owed', async () => {
    const customerId = await newCustomer(admin, { firstName: 'Ann', lastName: 'Lee' });
    const newer = await openInvoice(store.db, orgId, { customerId, total: 70, issueDate: '2026-10-15', dueDate: '2026-11-14' });
    const older = await openInvoice(store.db, orgId, { customerId, total: 45.5, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    expect(await balances(customerId)).toMatchObject({ balanceDue: 115.5, creditBalance: 0 });

    const payment = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 150, method: 'CHECK', reference: '2041', receivedAt: '2026-11-02T18:00:00Z' } })).recordPayment;
    expect(payment).toMatchObject({ kind: 'PAYMENT', amount: 150, currency: 'USD', method: 'CHECK', unapplied: 34.5, customer: { id: customerId } });
    expect(payment.applications).toEqual([
      { amount: 45.5, invoice: { id: older.id, status: 'PAID', balanceDue: 0 }, payment: { id: payment.id } },
      { amount: 70, invoice: { id: newer.id, status: 'PAID', balanceDue: 0 }, payment: { id: payment.id } },
    ]);
    expect(await balances(customerId)).toMatchObject({ balanceDue: 0, creditBalance: 34.5 });

    const reversal = ok(await admin(REVERSE_PAYMENT, { id: payment.id, reason: 'Check returned unpaid' })).reversePayment;
    expect(reversal).toMatchObject({ kind: 'REVERSAL', amount: -150, reversesPaymentId: payment.id });
    expect(reversal.applications).toEqual([
      { amount: -45.5, invoice: { id: older.id, status: 'OPEN' } },
      { amount: -70, invoice: { id: newer.id, status: 'OPEN' } },
    ]);
    expect(await balances(customerId)).toMatchObject({ balanceDue: 115.5, creditBalance: 0 });
    expect(ok(await admin(PAYMENT, { id: payment.id })).payment).toMatchObject({ reversedBy: { id: reversal.id } });
    expect(errorCodes(await admin(REVERSE_PAYMENT, { id: payment.id, reason: 'again' }))).toEqual(['CONFLICT']);
  });

  it("an overpayment's credit is applied when the customer's next invoice is finalized, as an application of that payment", async () => {
    const customerId = await newCustomer(admin, { lastName: 'Credit' });
    const draft = async (unitPrice: number) =>
      ok(await admin(CREATE_INVOICE, { input: { customerId, lines: [{ description: 'Pump repair', quantity: 1, unitPrice, taxId: null }] } })).createInvoice.id;
    const first = ok(await admin(FINALIZE_INVOICE, { id: await draft(120) })).finalizeInvoice;
    expect(first).toMatchObject({ status: 'OPEN', total: 120, balanceDue: 120 });

    const payment = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 200, method: 'ACH' } })).recordPayment;
    expect(payment).toMatchObject({ unapplied: 80 });
    expect(await balances(customerId)).toMatchObject({ balanceDue: 0, creditBalance: 80 });

    const second = ok(await admin(FINALIZE_INVOICE, { id: await draft(50.25) })).finalizeInvoice;
    expect(second).toMatchObject({ status: 'PAID', total: 50.25, amountPaid: 50.25, balanceDue: 0 });
    expect(second.applications).toEqual([{ amount: 50.25, payment: { id: payment.id } }]);
    const third = ok(await admin(FINALIZE_INVOICE, { id: await draft(40) })).finalizeInvoice;
    expect(third).toMatchObject({ status: 'OPEN', amountPaid: 29.75, balanceDue: 10.25 });
    expect(await balances(customerId)).toMatchObject({ balanceDue: 10.25, creditBalance: 0 });
    expect(ok(await admin(PAYMENT, { id: payment.id })).payment).toMatchObject({ unapplied: 0 });
  });

  it('a paid invoice is voided only once its payment is reversed', async () => {
    const customerId = await newCustomer(admin, { lastName: 'Voided' });
    const draftId = ok(await admin(CREATE_INVOICE, { input: { customerId, lines: [{ description: 'Filter clean', quantity: 1, unitPrice: 85, taxId: null }] } })).createInvoice.id;
    ok(await admin(FINALIZE_INVOICE, { id: draftId }));
    const payment = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 85, method: 'CHECK', invoiceIds: [draftId] } })).recordPayment;
    expect(errorCodes(await admin(VOID_INVOICE, { id: draftId, reason: 'Billed in error' }))).toEqual(['CONFLICT']);
    ok(await admin(REVERSE_PAYMENT, { id: payment.id, reason: 'Refunded: billed in error' }));
    expect(ok(await admin(VOID_INVOICE, { id: draftId, reason: 'Billed in error' })).voidInvoice).toMatchObject({ status: 'VOID', amountPaid: 0 });
    expect(await balances(customerId)).toMatchObject({ balanceDue: 0, creditBalance: 0 });
  });

  it('pays the named invoices first, in their order', async () => {
    const customerId = await newCustomer(admin, { lastName: 'Named' });
    const first = await openInvoice(store.db, orgId, { customerId, total: 30, issueDate: '2026-09-01', dueDate: '2026-09-30' });
    const second = await openInvoice(store.db, orgId, { customerId, total: 40, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const paid = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 50, method: 'CASH', invoiceIds: [second.id] } })).recordPayment;
    expect(paid.applications.map((a: { amount: number; invoice: { id: string } }) => [a.invoice.id, a.amount])).toEqual([
      [second.id, 40],
      [first.id, 10],
    ]);
    expect(paid.invoiceIds).toEqual([second.id]);
  });

  it('bad payments get a clear error and change nothing', async () => {
    const customerId = await newCustomer(admin, { lastName: 'Careful' });
    const due = await openInvoice(store.db, orgId, { customerId, total: 90, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const other = await newOrganization(store.db, 'Elsewhere Pools');
    const otherCustomer = await newCustomer(caller(server, other.token), { lastName: 'Stranger' });
    const foreign = await openInvoice(store.db, other.org.id, { customerId: otherCustomer, total: 12, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const draft = await openInvoice(store.db, orgId, { customerId, total: 5, issueDate: '2026-10-01', dueDate: '2026-10-31', status: 'DRAFT' });
    const base = { customerId, amount: 10, method: 'CASH' };
    const refused = [
      [{ ...base, currency: 'EUR' }, 'BAD_USER_INPUT', /USD/],
      [{ ...base, amount: -10 }, 'BAD_USER_INPUT', /amount/],
      [{ ...base, amount: 0 }, 'BAD_USER_INPUT', /amount/],
      [{ ...base, amount: 10.005 }, 'BAD_USER_INPUT', /decimals/],
      [{ ...base, invoiceIds: [foreign.id] }, 'NOT_FOUND', /Invoice/],
      [{ ...base, customerId: otherCustomer }, 'NOT_FOUND', /Customer/],
      [{ ...base, invoiceIds: [draft.id] }, 'BAD_USER_INPUT', /draft/],
    ] as const;
    for (const [input, code, message] of refused) {
      const res = await admin(RECORD_PAYMENT, { input });
      expect(errorCodes(res), JSON.stringify(input)).toEqual([code]);
      expect(res.errors![0]!.message).toMatch(message);
    }
    expect(await paymentsOf(customerId)).toEqual([]);
    expect(await storedInvoice(store.db, orgId, due.id)).toMatchObject({ status: 'OPEN', amountPaid: 0, balanceDue: 90 });
    expect(await storedInvoice(store.db, other.org.id, foreign.id)).toMatchObject({ amountPaid: 0, balanceDue: 12 });
  });

  it('a technician takes payments from its own customers only, replays them safely, and reads only their balances', async () => {
    const tech = await tokenFor(server, adminToken, 'TECHNICIAN');
    const technician = caller(server, tech.token);
    const own = await newCustomer(admin, { lastName: 'Assigned', service: { technicianId: tech.apiToken.userId } });
    const notOwn = await newCustomer(admin, { lastName: 'Someone Else' });
    const ownInvoice = await openInvoice(store.db, orgId, { customerId: own, total: 80, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const otherInvoice = await openInvoice(store.db, orgId, { customerId: notOwn, total: 80, issueDate: '2026-10-01', dueDate: '2026-10-31' });

    const taken = { id: 'phone-7f3a-payment', customerId: own, amount: 80, method: 'CASH', receivedAt: '2026-11-04T16:30:00Z' };
    const first = ok(await technician(RECORD_PAYMENT, { input: taken })).recordPayment;
    expect(first).toMatchObject({ id: taken.id, createdById: tech.apiToken.userId, unapplied: 0 });
    const replay = ok(await technician(RECORD_PAYMENT, { input: taken })).recordPayment;
    expect(replay).toEqual(first);
    expect(await paymentsOf(own)).toHaveLength(1);
    expect(await storedInvoice(store.db, orgId, ownInvoice.id)).toMatchObject({ status: 'PAID', amountPaid: 80 });
    const changed = await technician(RECORD_PAYMENT, { input: { ...taken, amount: 85 } });
    expect(errorCodes(changed)).toEqual(['CONFLICT']);

    const refused = await technician(RECORD_PAYMENT, { input: { customerId: notOwn, amount: 80, method: 'CASH' } });
    expect(errorCodes(refused)).toEqual(['FORBIDDEN']);
    expect(await paymentsOf(notOwn)).toEqual([]);
    expect(await storedInvoice(store.db, orgId, otherInvoice.id)).toMatchObject({ status: 'OPEN', balanceDue: 80 });

    expect(await balances(own, technician)).toMatchObject({ balanceDue: 0, creditBalance: 0 });
    expect(await balances(notOwn, technician)).toMatchObject({ balanceDue: null, creditBalance: null });
    expect(errorCodes(await technician(REVERSE_PAYMENT, { id: first.id, reason: 'x' }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await technician(PAYMENTS, { first: 10 }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await technician(AGING, {}))).toEqual(['FORBIDDEN']);
  });

  it('infinitePayments pages newest received first and filters by accountingId and paymentProcessorId', async () => {
    const customerId = await newCustomer(admin, { lastName: 'Pager' });
    for (const [day, extra] of [
      ['01', { accountingId: 'QB-1' }],
      ['02', { paymentProcessorId: 'ch_123', method: 'CARD' }],
      ['03', {}],
    ] as const) {
      ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: Number(day), method: 'CASH', receivedAt: `2026-11-${day}T12:00:00Z`, ...extra } }));
    }
    const page1 = ok(await admin(PAYMENTS, { first: 2, filter: { customerId } })).infinitePayments;
    expect(page1.edges.map((e: { node: { amount: number } }) => e.node.amount)).toEqual([3, 2]);
    const page2 = ok(await admin(PAYMENTS, { first: 2, after: page1.pageInfo.endCursor, filter: { customerId } })).infinitePayments;
    expect(page2.edges.map((e: { node: { amount: number } }) => e.node.amount)).toEqual([1]);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    const byAccounting = ok(await admin(PAYMENTS, { first: 10, filter: { accountingId: 'QB-1' } })).infinitePayments.edges;
    expect(byAccounting.map((e: { node: { amount: number } }) => e.node.amount)).toEqual([1]);
    const byProcessor = ok(await admin(PAYMENTS, { first: 10, filter: { paymentProcessorId: 'ch_123' } })).infinitePayments.edges;
    expect(byProcessor.map((e: { node: { amount: number } }) => e.node.amount)).toEqual([2]);
  });

  it("a customer's statement: the opening balance, each invoice and payment with the running balance, the closing balance", async () => {
    const customerId = await newCustomer(admin, { lastName: 'Statement' });
    const before = await openInvoice(store.db, orgId, { customerId, total: 100, issueDate: '2026-09-01', dueDate: '2026-09-30' });
    ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 40, method: 'CASH', receivedAt: '2026-09-15T18:00:00Z' } }));
    const october = await openInvoice(store.db, orgId, { customerId, total: 75.5, issueDate: '2026-10-05', dueDate: '2026-11-04' });
    const big = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 100, method: 'ACH', reference: 'ACH-9', receivedAt: '2026-10-10T18:00:00Z' } })).recordPayment;
    const check = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 20, method: 'CHECK', reference: '311', receivedAt: '2026-10-20T18:00:00Z' } })).recordPayment;
    await openInvoice(store.db, orgId, { customerId, total: 30, issueDate: '2026-11-05', dueDate: '2026-12-05' });

    const statement = ok(await admin(STATEMENT, { customerId, from: '2026-10-01', to: '2026-10-31' })).customerStatement;
    // Before October: 100 invoiced less 40 paid.
    expect(statement).toMatchObject({ customer: { id: customerId }, currency: 'USD', openingBalance: 60, invoiced: 75.5, paid: 120, closingBalance: 15.5 });
    expect(statement.lines).toEqual([
      { date: '2026-10-05', kind: 'INVOICE', invoiceId: october.id, paymentId: null, reference: october.number, method: null, amount: 75.5, balance: 135.5 },
      { date: '2026-10-10', kind: 'PAYMENT', invoiceId: null, paymentId: big.id, reference: 'ACH-9', method: 'ACH', amount: -100, balance: 35.5 },
      { date: '2026-10-20', kind: 'PAYMENT', invoiceId: null, paymentId: check.id, reference: '311', method: 'CHECK', amount: -20, balance: 15.5 },
    ]);
    expect(await storedInvoice(store.db, orgId, before.id)).toMatchObject({ status: 'PAID' });
    const backwards = await admin(STATEMENT, { customerId, from: '2026-10-31', to: '2026-10-01' });
    expect(errorCodes(backwards)).toEqual(['BAD_USER_INPUT']);
    expect(backwards.errors![0]!.message).toMatch(/ends before it starts/);
  });

  it('the receivables aging buckets what each customer owed on a day by days past due, as it was that day', async () => {
    const { org, token } = await newOrganization(store.db, 'Aging Pools');
    const office = caller(server, token);
    const ann = await newCustomer(office, { firstName: 'Ann', lastName: 'Lee' });
    const bob = await newCustomer(office, { firstName: 'Bob', lastName: 'Ng' });
    const invoice = (customerId: string, total: number, issueDate: string, dueDate: string) =>
      openInvoice(store.db, org.id, { customerId, total, issueDate, dueDate });
    await invoice(ann, 100, '2026-11-01', '2026-11-20'); // not yet due: current
    const partly = await invoice(ann, 200, '2026-10-01', '2026-10-16'); // 30 days late, 50 paid by then
    await invoice(ann, 80, '2026-09-01', '2026-09-15'); // 61 days late
    const paidEarly = await invoice(ann, 10, '2026-10-01', '2026-10-31'); // paid: owes nothing
    const old = await invoice(bob, 300, '2026-07-01', '2026-07-31'); // 107 days late, paid 10 only after the day
    await invoice(bob, 45.25, '2026-09-10', '2026-10-15'); // 31 days late
    await invoice(bob, 20, '2026-11-16', '2026-12-16'); // issued after the day
    const pay = async (customerId: string, amount: number, invoiceId: string, day: string) =>
      ok(await office(RECORD_PAYMENT, { input: { customerId, amount, method: 'CHECK', invoiceIds: [invoiceId], receivedAt: `${day}T18:00:00Z` } }));
    await pay(ann, 10, paidEarly.id, '2026-10-05');
    await pay(ann, 50, partly.id, '2026-11-10');
    await pay(bob, 10, old.id, '2026-11-20');

    const aging = ok(await office(AGING, { asOf: '2026-11-15' })).receivablesAging;
    expect(aging).toMatchObject({ asOf: '2026-11-15', currency: 'USD' });
    expect(aging.customers).toEqual([
      { customer: { id: ann }, customerName: 'Ann Lee', buckets: { current: 100, days1to30: 150, days31to60: 0, days61to90: 80, over90: 0, total: 330 } },
      { customer: { id: bob }, customerName: 'Bob Ng', buckets: { current: 0, days1to30: 0, days31to60: 45.25, days61to90: 0, over90: 300, total: 345.25 } },
    ]);
    expect(aging.totals).toEqual({ current: 100, days1to30: 150, days31to60: 45.25, days61to90: 80, over90: 300, total: 675.25 });
  });
});
