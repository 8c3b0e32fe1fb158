import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { caller, ok, tokenFor } from './support/api.js';
import { openInvoice } from './support/billing-fixtures.payments.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';

/** The invoices' and payments' CSV exports, read back as an accounting import would read them. */
const CREATE_CUSTOMER = `mutation CreateCustomer($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const CREATE_ITEM = `mutation CreateItem($input: CreateInventoryItemInput!) { createInventoryItem(input: $input) { id } }`;
const RECORD_PAYMENT = `mutation RecordPayment($input: RecordPaymentInput!) { recordPayment(input: $input) { id } }`;
const REVERSE_PAYMENT = `mutation ReversePayment($id: ID!, $reason: String!) { reversePayment(id: $id, reason: $reason) { id } }`;

describe.each(engines)('billing CSV exports on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let orgId: string;
  let adminToken: string;

  useTestServer(engine, { organization: 'Export Pools' }, (t) => {
    ({ store, server } = t);
    orgId = t.org.id;
    adminToken = t.token;
  });

  const csv = async (path: string, token = adminToken) => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { res, rows: res.status === 200 ? (parse(await res.text(), { columns: true }) as Record<string, string>[]) : [] };
  };

  it('a row per invoice line and per payment application, with accountingIds, formulas neutralized, numbers as numbers', async () => {
    const admin = caller(server, adminToken);
    const customerId = ok(
      await admin(CREATE_CUSTOMER, { input: { firstName: '=cmd|x', lastName: 'Lee', accountingName: 'Lee Pools LLC', accountingId: 'QB-CUST-7' } }),
    ).createCustomer.id;
    const itemId = ok(await admin(CREATE_ITEM, { input: { name: 'Chlorine tabs', category: 'CHEMICAL', unitPrice: 15, accountingId: 'QB-ITEM-3' } })).createInventoryItem.id;
    const october = await openInvoice(store.db, orgId, {
      customerId,
      number: 'INV-0001',
      accountingId: 'QB-INV-1',
      total: 130,
      issueDate: '2026-10-01',
      dueDate: '2026-10-31',
      lines: [
        { description: 'Weekly service', quantity: 4, unitPrice: 25, amount: 100, date: '2026-09-30' },
        { description: '@SUM(1+9) tabs', quantity: 2, unitPrice: 15, amount: 30, itemId },
      ],
    });
    const november = await openInvoice(store.db, orgId, { customerId, number: 'INV-0002', total: 40, issueDate: '2026-11-05', dueDate: '2026-12-05' });
    await openInvoice(store.db, orgId, { customerId, total: 99, issueDate: '2026-10-02', dueDate: '2026-11-01', status: 'DRAFT' });
    const payment = ok(
      await admin(RECORD_PAYMENT, { input: { customerId, amount: 200, method: 'CHECK', reference: '-1042', accountingId: 'QB-PAY-1', receivedAt: '2026-10-20T18:00:00Z' } }),
    ).recordPayment.id;
    const bounced = ok(await admin(RECORD_PAYMENT, { input: { customerId, amount: 25, method: 'CHECK', reference: '77', receivedAt: '2026-11-06T18:00:00Z' } })).recordPayment.id;
    const reversal = ok(await admin(REVERSE_PAYMENT, { id: bounced, reason: 'Bounced' })).reversePayment.id;

    const invoices = await csv('/invoices/export/csv?from=2026-10-01&to=2026-10-31');
    expect(invoices.res.headers.get('content-type')).toMatch(/^text\/csv/);
    const invoiceFields = {
      invoiceNumber: 'INV-0001',
      invoiceAccountingId: 'QB-INV-1',
      status: 'PAID',
      customerName: "'=cmd|x Lee",
      customerAccountingName: 'Lee Pools LLC',
      customerAccountingId: 'QB-CUST-7',
      issueDate: '2026-10-01',
      dueDate: '2026-10-31',
      periodStart: '',
      periodEnd: '',
      currency: 'USD',
      subtotal: '130',
      tax: '0',
      total: '130',
      amountPaid: '130',
      balanceDue: '0',
      voidReason: '',
      invoiceId: october.id,
      customerId,
    };
    expect(invoices.rows).toEqual([
      { ...invoiceFields, lineNumber: '0', lineSource: 'MANUAL', lineDate: '2026-09-30', description: 'Weekly service', itemAccountingId: '', quantity: '4', unitPrice: '25', lineAmount: '100', taxRate: '0', lineTax: '' },
      { ...invoiceFields, lineNumber: '1', lineSource: 'MANUAL', lineDate: '', description: "'@SUM(1+9) tabs", itemAccountingId: 'QB-ITEM-3', quantity: '2', unitPrice: '15', lineAmount: '30', taxRate: '0', lineTax: '' },
    ]);
    const all = await csv('/invoices/export/csv');
    expect(all.rows.map((r) => [r.invoiceNumber, r.lineNumber, r.balanceDue])).toEqual([
      ['INV-0001', '0', '0'],
      ['INV-0001', '1', '0'],
      ['INV-0002', '', '0'],
    ]);

    const payments = await csv('/payments/export/csv');
    const paymentFields = {
      date: '2026-10-20',
      kind: 'PAYMENT',
      paymentAccountingId: 'QB-PAY-1',
      customerName: "'=cmd|x Lee",
      customerAccountingName: 'Lee Pools LLC',
      customerAccountingId: 'QB-CUST-7',
      method: 'CHECK',
      reference: "'-1042",
      currency: 'USD',
      amount: '200',
      unapplied: '30',
      reason: '',
      reversesPaymentId: '',
      paymentProcessorId: '',
      receivedAt: '2026-10-20T18:00:00.000Z',
      paymentId: payment,
      customerId,
    };
    expect(payments.rows.slice(0, 2)).toEqual([
      { ...paymentFields, invoiceNumber: 'INV-0001', invoiceAccountingId: 'QB-INV-1', appliedAmount: '130', appliedDate: '2026-10-20' },
      { ...paymentFields, invoiceNumber: 'INV-0002', invoiceAccountingId: '', appliedAmount: '40', appliedDate: '2026-10-20' },
    ]);
    // The bounced check had nothing to apply to: one row, all of it unapplied; its reversal takes it back.
    expect(payments.rows.slice(2).map((r) => [r.paymentId, r.kind, r.amount, r.unapplied, r.invoiceNumber, r.reversesPaymentId, r.reason])).toEqual([
      [bounced, 'PAYMENT', '25', '25', '', '', ''],
      [reversal, 'REVERSAL', '-25', '-25', '', bounced, 'Bounced'],
    ]);
    expect(november.number).toBe('INV-0002');
    expect((await csv('/payments/export/csv?from=2026-10-21&to=2026-11-06')).rows.map((r) => r.paymentId)).toEqual([bounced]);
  });

  it('a bad period is refused before any byte; a technician may not export', async () => {
    const bad = await csv('/invoices/export/csv?from=2026-11-01&to=2026-10-01');
    expect(bad.res.status).toBe(400);
    expect((await bad.res.json()).error.message).toMatch(/ends before it starts/);
    expect((await csv('/payments/export/csv?from=yesterday')).res.status).toBe(400);
    const tech = await tokenFor(server, adminToken, 'TECHNICIAN');
    expect((await csv('/invoices/export/csv', tech.token)).res.status).toBe(403);
    expect((await csv('/payments/export/csv', tech.token)).res.status).toBe(403);
  });
});
