import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPoolClient, DEFAULT_COLLECTIONS, PoolClientError, type PoolClient } from '../client-sdk/index.js';
import { caller, ok, tokenFor } from './support/api.js';
import { openInvoice, storedInvoice } from './support/billing-fixtures.payments.js';
import { engines } from './support/engines.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { useTestServer } from './support/fixture.js';
import type { TestServer } from './support/server.js';
import { pullAll } from './support/sync.js';
import type { TestStore } from './support/engines.js';

/**
 * Taking a payment at the door with the SDK: written on the phone with the server away, kept
 * across a restart, pushed through a network that loses the answer, recorded once; the balance due
 * the phone shows before and after.
 */
const PHONE = ['organization', 'customers', 'invoices', 'payments'];

describe.each(engines)('payments taken with the SDK, server on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let proxy: FaultProxy;
  let orgId: string;
  let office: string;
  let tech: string;
  let techUser: string;
  let gql: ReturnType<typeof caller>;
  const open: PoolClient[] = [];

  useTestServer(engine, { organization: 'Door Pools', server: { heartbeatMs: 300 } }, async (t) => {
    ({ store, server } = t);
    orgId = t.org.id;
    office = t.token;
    gql = caller(server, office);
    const technician = await tokenFor(server, office, 'TECHNICIAN');
    tech = technician.token;
    techUser = technician.apiToken.userId;
  });
  beforeEach(async () => {
    proxy = await startFaultProxy(server.url);
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
    await proxy.close();
  });

  async function phone(options: Partial<Parameters<typeof createPoolClient>[0]> = {}) {
    const c = await createPoolClient({ baseUrl: proxy.url, token: tech, collections: PHONE, retryMs: 50, requestTimeoutMs: 1500, name: `p${Math.random().toString(36).slice(2)}`, ...options });
    open.push(c);
    return c;
  }
  const close = async (c: PoolClient) => {
    open.splice(open.indexOf(c), 1);
    await c.close();
  };
  /** A customer assigned to the technician: its phone holds it. */
  const customerOf = async (lastName: string) =>
    ok(await gql(`mutation($t: ID, $n: String!) { createCustomer(input: {lastName: $n, service: {technicianId: $t}}) { id } }`, { t: techUser, n: lastName })).createCustomer.id as string;
  const serverPayments = async (customerId: string) => (await pullAll(server, office, 'payments')).documents.filter((d: any) => d.customerId === customerId);

  it('a payment taken offline survives a restart, is pushed through lost answers and arrives once; the balance due follows', async () => {
    const customerId = await customerOf('Doorstep');
    const older = await openInvoice(store.db, orgId, { customerId, total: 100, issueDate: '2026-09-01', dueDate: '2026-09-30' });
    const later = await openInvoice(store.db, orgId, { customerId, total: 80.5, issueDate: '2026-10-01', dueDate: '2026-10-31' });
    const storage = getRxStorageMemory();
    // RxDB's memory storage outlives a closed database within the process: a name of this run's own.
    const name = `door-phone-${Math.random().toString(36).slice(2)}`;

    const first = await phone({ storage, name });
    first.sync.start();
    await first.sync.awaitInSync();
    expect(await first.balanceDue(customerId)).toMatchObject({ currency: 'USD', synced: 180.5, takenSince: 0, due: 180.5, pending: [] });

    // The server goes away (connections refused), and the technician takes a check at the door.
    proxy.setMode('refuse');
    proxy.loseConnections();
    const taken = await first.takePayment({ customerId, amount: 130, method: 'CHECK', reference: ' 2207 ' });
    expect(taken).toMatchObject({ customerId, amount: 130, currency: 'USD', method: 'CHECK', reference: '2207', kind: 'PAYMENT' });
    // Bad input throws before anything is written.
    for (const bad of [
      { customerId, amount: 0, method: 'CASH' },
      { customerId, amount: 10.005, method: 'CASH' },
      { customerId, amount: 10, method: 'CARD' },
      { customerId: 'no-such-customer', amount: 10, method: 'CASH' },
      { customerId, amount: 10, method: 'CASH', invoiceIds: ['no-such-invoice'] },
    ]) {
      await expect(first.takePayment(bad as never)).rejects.toBeInstanceOf(PoolClientError);
    }
    const offline = await first.balanceDue(customerId);
    expect(offline).toMatchObject({ synced: 180.5, takenSince: 130, due: 50.5 });
    expect(offline.pending.map((p) => p.id)).toEqual([taken.id]);
    await close(first); // the app is killed

    const again = await phone({ storage, name });
    expect(await again.balanceDue(customerId)).toMatchObject({ synced: 180.5, takenSince: 130, due: 50.5 });
    // Back on a network that loses every answer: the server records the push, the phone never hears.
    proxy.setMode('cut-responses');
    again.sync.start();
    const deadline = Date.now() + 15_000;
    while ((await serverPayments(customerId)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await serverPayments(customerId)).toHaveLength(1);
    proxy.setMode('pass');
    proxy.loseConnections();
    await again.sync.awaitInSync();

    expect((await serverPayments(customerId)).map((p: any) => [p.id, p.amount, p.method, p.reference, p.createdById])).toEqual([[taken.id, 130, 'CHECK', '2207', techUser]]);
    expect(await storedInvoice(store.db, orgId, older.id)).toMatchObject({ status: 'PAID', balanceDue: 0 });
    expect(await storedInvoice(store.db, orgId, later.id)).toMatchObject({ status: 'OPEN', amountPaid: 30, balanceDue: 50.5 });
    // What the phone shows now is what the server says: the paid invoice left it, the payment is synced.
    const synced = await firstValueFrom(again.balanceDue$(customerId).pipe(filter((b) => b.invoices.length === 1)));
    expect(synced).toMatchObject({ synced: 50.5, takenSince: 0, due: 50.5, pending: [] });
    expect(synced.invoices.map((i) => i.id)).toEqual([later.id]);
    expect(await again.db.collections.payments!.findOne(taken.id).exec()).not.toBeNull();
  });

  it('a payment is never changed or deleted on the device, and the default collections fit under the limit', async () => {
    const customerId = await customerOf('Ledger');
    const device = await phone();
    device.sync.start();
    await device.sync.awaitInSync();
    const taken = await device.takePayment({ customerId, amount: 20, method: 'CASH' });
    await expect(device.patch('payments', taken.id, { amount: 2 })).rejects.toThrow(/payment is never changed/);
    await expect(device.remove('payments', taken.id)).rejects.toThrow(/never changed|cannot be deleted/);
    await device.sync.awaitInSync();
    expect((await serverPayments(customerId)).map((p: any) => p.amount)).toEqual([20]);
    expect(DEFAULT_COLLECTIONS).not.toContain('appointments');
    expect(DEFAULT_COLLECTIONS).toEqual(expect.arrayContaining(['invoices', 'payments']));
    await expect(phone({ collections: [...DEFAULT_COLLECTIONS, 'appointments'] })).rejects.toThrow(/at most 11/);
  });
});
