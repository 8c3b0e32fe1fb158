import { describe, expect, it } from 'vitest';
import { isDeparture } from '../shared/index.js';
import { authenticate } from '../server/operations/auth.js';
import { recordPaymentIn } from '../server/operations/billing/payments.js';
import type { OperationContext } from '../server/operations/context.js';
import { loadConfig } from '../server/config.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openInvoice, storedInvoice } from './support/billing-fixtures.payments.js';
import { engines, type TestStore } from './support/engines.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';
import { pullAll, pushChanges } from './support/sync.js';

/**
 * Billing on devices over the sync protocol: a technician's phone holds its customers' open
 * invoices and takes payments into a ledger the server applies once; the office's devices hold
 * open and recent invoices (never drafts); invoices are read-only on every device.
 */
describe.each(engines)('billing sync on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let orgId: string;
  let office: string;
  let tech: string;
  let techUserId: string;
  let otherTech: string;
  let gql: ReturnType<typeof caller>;
  let officeCtx: OperationContext;

  useTestServer(engine, { organization: 'Paying Pools' }, async (fixture) => {
    ({ store, server } = fixture);
    orgId = fixture.org.id;
    office = fixture.token;
    gql = caller(server, office);
    const t = await tokenFor(server, office, 'TECHNICIAN');
    tech = t.token;
    techUserId = t.apiToken.userId;
    otherTech = (await tokenFor(server, office, 'TECHNICIAN')).token;
    const viewer = await authenticate(store.db, `Bearer ${office}`, { ...loadConfig({}).auth, now: () => new Date() });
    officeCtx = { db: store.db, blobs: server.blobs, viewer };
  });

  let n = 0;
  const uid = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  /** A customer the technician signed up on its phone: its device holds it. */
  async function techCustomer(token = tech): Promise<string> {
    const id = uid('cust');
    expect((await pushChanges(server, token, 'customers', [{ newDocumentState: { id, lastName: id } }])).status).toBe(200);
    return id;
  }
  const payment = (customerId: string, amount: number, extra: Record<string, unknown> = {}) => ({
    id: uid('pay'),
    customerId,
    kind: 'PAYMENT',
    amount,
    currency: 'USD',
    method: 'CASH',
    reference: null,
    receivedAt: new Date().toISOString(),
    invoiceIds: null,
    ...extra,
  });
  const live = (docs: any[]) => {
    const last = new Map<string, any>();
    for (const d of docs) last.set(d.id, d);
    return [...last.values()].filter((d) => !d._deleted);
  };
  /** The customer's payments on the server, as the office's devices hold them. */
  const paymentsOf = async (customerId: string) =>
    live((await pullAll(server, office, 'payments')).documents)
      .filter((p) => p.customerId === customerId)
      .map((p) => ({ id: p.id, amount: p.amount, method: p.method, reference: p.reference }));

  it("a technician's phone holds its customers' OPEN invoices with their balances, and a paid one leaves it", async () => {
    const mine = await techCustomer();
    const notMine = await techCustomer(otherTech);
    const open = await openInvoice(store.db, orgId, { customerId: mine, total: 120, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    await openInvoice(store.db, orgId, { customerId: mine, total: 30, issueDate: '2026-10-01', dueDate: '2026-10-31', status: 'DRAFT' });
    await openInvoice(store.db, orgId, { customerId: notMine, total: 75, issueDate: '2026-10-01', dueDate: '2026-10-31' });

    const held = await pullAll(server, tech, 'invoices');
    expect(live(held.documents).map((d) => [d.id, d.customerId, d.status, d.balanceDue])).toEqual([[open.id, mine, 'OPEN', 120]]);

    // Paid in full at the office: the invoice leaves the phone as a departure.
    await store.db.transaction((tx) => recordPaymentIn(tx, officeCtx, { customerId: mine, amount: 120, method: 'ACH' }));
    const after = await pullAll(server, tech, 'invoices', held.checkpoint);
    expect(after.documents).toEqual([expect.objectContaining({ id: open.id, _deleted: true })]);
    expect(isDeparture(after.documents[0])).toBe(true);
  });

  it('a payment taken offline is applied once, however often it is pushed, and the new balance reaches the phone', async () => {
    const customerId = await techCustomer();
    const older = await openInvoice(store.db, orgId, { customerId, total: 100, issueDate: '2026-09-01', dueDate: '2026-09-30' });
    const later = await openInvoice(store.db, orgId, { customerId, total: 80, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const { checkpoint } = await pullAll(server, tech, 'invoices');
    const taken = payment(customerId, 130, { method: 'CHECK', reference: '2207' });
    const row = { newDocumentState: taken, changeId: uid('ch') };

    const first = await pushChanges(server, tech, 'payments', [row]);
    expect(first.status).toBe(200);
    expect(first.body).toEqual([expect.objectContaining({ id: taken.id, amount: 130, createdById: techUserId, createdAt: expect.any(String) })]);
    // The answer was lost: the same change again, then the same payment under a new change id (another restart).
    expect((await pushChanges(server, tech, 'payments', [row])).status).toBe(200);
    expect((await pushChanges(server, tech, 'payments', [{ newDocumentState: taken, changeId: uid('ch') }])).status).toBe(200);

    expect(await paymentsOf(customerId)).toEqual([{ id: taken.id, amount: 130, method: 'CHECK', reference: '2207' }]);
    expect(await storedInvoice(store.db, orgId, older.id)).toMatchObject({ status: 'PAID', balanceDue: 0 });
    expect(await storedInvoice(store.db, orgId, later.id)).toMatchObject({ status: 'OPEN', amountPaid: 30, balanceDue: 50 });

    const pulled = await pullAll(server, tech, 'invoices', checkpoint);
    const byId = new Map(pulled.documents.map((d) => [d.id, d]));
    expect(isDeparture(byId.get(older.id))).toBe(true);
    expect(byId.get(later.id)).toMatchObject({ status: 'OPEN', amountPaid: 30, balanceDue: 50 });
    // The phone holds the payment it took.
    expect(live((await pullAll(server, tech, 'payments')).documents).map((d) => d.id)).toContain(taken.id);
  });

  it("a technician's payment for a customer not its own is refused and kept apart; nothing is recorded", async () => {
    const theirs = await techCustomer(otherTech);
    await openInvoice(store.db, orgId, { customerId: theirs, total: 60, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const taken = payment(theirs, 60);
    const pushed = await pushChanges(server, tech, 'payments', [{ newDocumentState: taken, changeId: uid('ch') }]);
    expect(pushed.status).toBe(200);
    expect(pushed.body).toEqual([expect.objectContaining({ id: taken.id, _deleted: true })]);
    expect(await paymentsOf(theirs)).toEqual([]);
    const quarantine = ok(await gql(`{ syncQuarantine(first: 50) { edges { node { documentId collection reason } } } }`)).syncQuarantine.edges.map((e: any) => e.node);
    expect(quarantine).toContainEqual(expect.objectContaining({ documentId: taken.id, collection: 'payments', reason: expect.stringContaining('own customers') }));
  });

  it('a payment taken offline while the customer was its own is recorded after the office gave the customer to another technician', async () => {
    const customerId = ok(await gql(`mutation($t: ID) { createCustomer(input: {lastName: "Moved", service: {technicianId: $t}}) { id } }`, { t: techUserId })).createCustomer.id as string;
    expect(live((await pullAll(server, tech, 'customers')).documents).map((d) => d.id)).toContain(customerId);
    const otherUserId = ok(await gql(`{ users(role: TECHNICIAN) { id } }`)).users.map((u: { id: string }) => u.id).find((id: string) => id !== techUserId);
    ok(await gql(`mutation($id: ID!, $t: ID) { updateCustomer(id: $id, input: {service: {technicianId: $t}}) { id } }`, { id: customerId, t: otherUserId }));
    expect(live((await pullAll(server, tech, 'customers')).documents).map((d) => d.id)).not.toContain(customerId);
    const taken = payment(customerId, 45);
    const pushed = await pushChanges(server, tech, 'payments', [{ newDocumentState: taken, changeId: uid('ch') }]);
    expect(pushed.body).toEqual([expect.objectContaining({ id: taken.id, amount: 45, _deleted: false })]);
    expect(await paymentsOf(customerId)).toEqual([{ id: taken.id, amount: 45, method: 'CASH', reference: null }]);
  });

  it('a payment is never changed or deleted from a device; a bad one is refused alone', async () => {
    const customerId = await techCustomer();
    const taken = payment(customerId, 25);
    await pushChanges(server, tech, 'payments', [{ newDocumentState: taken, changeId: uid('ch') }]);
    const edited = await pushChanges(server, tech, 'payments', [{ newDocumentState: { ...taken, amount: 2.5 }, changeId: uid('ch') }]);
    expect(edited.body).toEqual([expect.objectContaining({ id: taken.id, amount: 25, _deleted: false })]);
    const deleted = await pushChanges(server, tech, 'payments', [{ newDocumentState: { ...taken, _deleted: true }, changeId: uid('ch') }]);
    expect(deleted.body).toEqual([expect.objectContaining({ id: taken.id, amount: 25, _deleted: false })]);

    const negative = payment(customerId, -5);
    const yen = payment(customerId, 5, { currency: 'JPY' });
    const good = payment(customerId, 5);
    const batch = await pushChanges(server, tech, 'payments', [negative, yen, good].map((p) => ({ newDocumentState: p, changeId: uid('ch') })));
    expect(batch.status).toBe(200);
    const answered = new Map(batch.body.map((d: any) => [d.id, d]));
    expect(answered.get(negative.id)).toMatchObject({ _deleted: true });
    expect(answered.get(yen.id)).toMatchObject({ _deleted: true });
    expect(answered.get(good.id)).toMatchObject({ amount: 5, _deleted: false });
    expect((await paymentsOf(customerId)).map((p) => p.amount).sort()).toEqual([25, 5].sort());
  });

  it('invoices are read-only on devices: a pushed change is answered with the server state and changes nothing', async () => {
    const customerId = await techCustomer();
    const open = await openInvoice(store.db, orgId, { customerId, total: 90, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const held = live((await pullAll(server, tech, 'invoices')).documents).find((d) => d.id === open.id);
    for (const token of [tech, office]) {
      const pushed = await pushChanges(server, token, 'invoices', [{ assumedMasterState: held, newDocumentState: { ...held, balanceDue: 0, amountPaid: 90, status: 'PAID', notes: 'paid, honest' }, changeId: uid('ch') }]);
      expect(pushed.status).toBe(200);
      expect(pushed.body).toEqual([expect.objectContaining({ id: open.id, status: 'OPEN', balanceDue: 90, notes: null })]);
    }
    const invented = await pushChanges(server, tech, 'invoices', [{ newDocumentState: { ...held, id: uid('inv') }, changeId: uid('ch') }]);
    expect(invented.body).toEqual([expect.objectContaining({ _deleted: true })]);
    expect(await storedInvoice(store.db, orgId, open.id)).toMatchObject({ status: 'OPEN', balanceDue: 90, notes: null });
  });

  it("the office's devices hold open and recently settled invoices, never drafts, and every recent payment", async () => {
    const customerId = await techCustomer();
    const open = await openInvoice(store.db, orgId, { customerId, total: 40, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const draft = await openInvoice(store.db, orgId, { customerId, total: 10, issueDate: '2026-10-01', dueDate: '2026-10-31', status: 'DRAFT' });
    const paidNow = await openInvoice(store.db, orgId, { customerId, total: 15, issueDate: '2026-08-01', dueDate: '2026-08-31' });
    const taken = payment(customerId, 15, { invoiceIds: [paidNow.id] });
    await pushChanges(server, tech, 'payments', [{ newDocumentState: taken, changeId: uid('ch') }]);
    const invoices = live((await pullAll(server, office, 'invoices')).documents);
    const ids = invoices.map((d) => d.id);
    expect(ids).toContain(open.id);
    expect(ids).not.toContain(draft.id);
    expect(invoices.find((d) => d.id === paidNow.id)).toMatchObject({ status: 'PAID', balanceDue: 0 });
    expect(live((await pullAll(server, office, 'payments')).documents).map((d) => d.id)).toContain(taken.id);
  });
});
