import { describe, expect, it } from 'vitest';
import { applyCreditTo, recordPaymentIn, reversePayment, type PaymentInput } from '../server/operations/billing/payments.js';
import { authenticate } from '../server/operations/auth.js';
import type { OperationContext } from '../server/operations/context.js';
import { loadConfig } from '../server/config.js';
import { caller, ok } from './support/api.js';
import { openInvoice, storedInvoice } from './support/billing-fixtures.payments.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';

/**
 * The payments ledger through its operations, as the sync push and GraphQL both call them: how a
 * payment is applied, what becomes credit and where credit goes, replays, reversals.
 */
const CREATE_CUSTOMER = `mutation CreateCustomer($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;

describe.each(engines)('the payments ledger on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let orgId: string;
  let ctx: OperationContext;
  let admin: ReturnType<typeof caller>;

  useTestServer(engine, { organization: 'Ledger Pools' }, async (t) => {
    ({ store, server } = t);
    orgId = t.org.id;
    admin = caller(server, t.token);
    const viewer = await authenticate(store.db, `Bearer ${t.token}`, { ...loadConfig({}).auth, now: () => new Date() });
    ctx = { db: store.db, blobs: server.blobs, viewer };
  });

  const newCustomer = async (lastName: string) => ok(await admin(CREATE_CUSTOMER, { input: { lastName } })).createCustomer.id as string;
  const record = (input: PaymentInput) => store.db.transaction((tx) => recordPaymentIn(tx, ctx, input));
  const invoice = async (id: string) => (await storedInvoice(store.db, orgId, id))!;

  it('pays the oldest invoices first, a partly paid one stays OPEN, and the rest becomes credit applied to the next invoice', async () => {
    const customerId = await newCustomer('Oldest');
    const later = await openInvoice(store.db, orgId, { customerId, total: 80, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const older = await openInvoice(store.db, orgId, { customerId, total: 100.5, issueDate: '2026-09-01', dueDate: '2026-09-30' });

    await record({ customerId, amount: 120.25, method: 'CHECK', reference: '1042', receivedAt: '2026-11-02T15:00:00Z' });
    expect(await invoice(older.id)).toMatchObject({ status: 'PAID', amountPaid: 100.5, balanceDue: 0 });
    expect(await invoice(later.id)).toMatchObject({ status: 'OPEN', amountPaid: 19.75, balanceDue: 60.25 });

    const overpaid = await record({ customerId, amount: 100, method: 'CASH' });
    expect(await invoice(later.id)).toMatchObject({ status: 'PAID', balanceDue: 0 });

    // 39.75 left over: the next invoice of 50 is paid that much by the same payment, never a negative line.
    const next = await openInvoice(store.db, orgId, { customerId, total: 50, issueDate: '2026-11-30', dueDate: '2026-12-30' });
    const applied = await store.db.transaction((tx) => applyCreditTo(tx, ctx, next.id));
    expect(applied).toBe(39.75);
    expect(await invoice(next.id)).toMatchObject({ status: 'OPEN', amountPaid: 39.75, balanceDue: 10.25 });
    // Applying again finds no credit left.
    expect(await store.db.transaction((tx) => applyCreditTo(tx, ctx, next.id))).toBe(0);
    expect(overpaid.kind).toBe('PAYMENT');
  });

  it('the same payment sent again is answered with the stored one and changes nothing; other content under its id is refused', async () => {
    const customerId = await newCustomer('Replay');
    const due = await openInvoice(store.db, orgId, { customerId, total: 40, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const input: PaymentInput = { id: 'phone-payment-1', customerId, amount: 25, method: 'CASH', receivedAt: '2026-11-03T10:00:00Z' };
    const first = await record(input);
    const again = await record(input);
    expect(again).toEqual(first);
    expect(await invoice(due.id)).toMatchObject({ amountPaid: 25, balanceDue: 15 });

    await expect(record({ ...input, amount: 30 })).rejects.toMatchObject({ kind: 'CONFLICT', message: expect.stringContaining('amount') });
    expect(await invoice(due.id)).toMatchObject({ amountPaid: 25, balanceDue: 15 });
  });

  it('payments of one customer at once never pay the same balance twice, and one id sent at once is recorded once', async () => {
    const customerId = await newCustomer('Crowd');
    const a = await openInvoice(store.db, orgId, { customerId, total: 45, issueDate: '2026-09-01', dueDate: '2026-09-30' });
    const b = await openInvoice(store.db, orgId, { customerId, total: 55, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const payments = Array.from({ length: 8 }, (_, i) => record({ customerId, amount: 30, method: 'CASH', reference: `r${i}` }));
    const same = Array.from({ length: 5 }, () => record({ id: 'same-payment-at-once', customerId, amount: 5, method: 'CHECK' }));
    const results = await Promise.all([...payments, ...same]);
    expect(new Set(results.slice(8).map((p) => p.id))).toEqual(new Set(['same-payment-at-once']));
    expect(await invoice(a.id)).toMatchObject({ status: 'PAID', amountPaid: 45, balanceDue: 0 });
    expect(await invoice(b.id)).toMatchObject({ status: 'PAID', amountPaid: 55, balanceDue: 0 });
    // 8 x 30 + 5 received, 100 owed: 145 is credit, and the next invoice of 200 takes all of it.
    const next = await openInvoice(store.db, orgId, { customerId, total: 200, issueDate: '2026-11-30', dueDate: '2026-12-30' });
    expect(await store.db.transaction((tx) => applyCreditTo(tx, ctx, next.id))).toBe(145);
    expect(await invoice(next.id)).toMatchObject({ status: 'OPEN', balanceDue: 55 });
  });

  it('a reversal takes back each application and reopens what it paid; it is made once, and a reversal is not reversed', async () => {
    const customerId = await newCustomer('Bounced');
    const due = await openInvoice(store.db, orgId, { customerId, total: 60, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const check = await record({ customerId, amount: 60, method: 'CHECK', reference: '555' });
    expect((await invoice(due.id)).status).toBe('PAID');

    const reversal = await reversePayment(ctx, check.id, 'Check bounced');
    expect(reversal).toMatchObject({ kind: 'REVERSAL', amount: -60, reversesPaymentId: check.id, reason: 'Check bounced' });
    expect(await invoice(due.id)).toMatchObject({ status: 'OPEN', amountPaid: 0, balanceDue: 60 });

    await expect(reversePayment(ctx, check.id, 'again')).rejects.toMatchObject({ kind: 'CONFLICT' });
    await expect(reversePayment(ctx, reversal.id, 'undo')).rejects.toMatchObject({ kind: 'BAD_USER_INPUT' });
    expect(await invoice(due.id)).toMatchObject({ status: 'OPEN', balanceDue: 60 });
  });
});
