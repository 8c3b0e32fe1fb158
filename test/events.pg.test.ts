import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../shared/index.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { pruneEvents } from '../server/storage/events.js';
import { caller, ok, tokenFor } from './support/api.js';
import { startBulk, waitForBulk } from './support/bulk.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { startMailbox, type Mailbox } from './support/mailboxes.js';
import { startTestServer, type TestServer } from './support/server.js';
import { pushChanges } from './support/sync.js';

/**
 * Events are written in the transaction of their change, whatever made it: a GraphQL mutation, a
 * device's sync push, a bulk operation, a worker. One change makes one event, of the first
 * declared rule it matches; the feed lists them in commit order, so a cursor never skips an
 * event committed late, and nothing older than 30 days.
 */
const EVENTS = `query($first: Int!, $after: String, $filter: EventFilter) { infiniteEvents(first: $first, after: $after, filter: $filter) { edges { cursor node { id type occurredAt organizationId data } } pageInfo { hasNextPage endCursor } } }`;
const CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const VISIT = `mutation($input: CreateServiceInput!) { createService(input: $input) { id } }`;
const UPDATE_VISIT = `mutation($id: ID!, $input: UpdateServiceInput!) { updateService(id: $id, input: $input) { id } }`;

type Event = { id: string; type: string; occurredAt: string; organizationId: string; data: Record<string, unknown> };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(engines)('events on %s', { timeout: 120_000 }, (engine) => {
  let store: TestStore;
  let server: TestServer;
  let mailbox: Mailbox;

  beforeAll(async () => {
    store = await openTestStore(engine);
    mailbox = await startMailbox();
    server = await startTestServer(store.db, {
      worker: { smtpUrl: mailbox.smtpUrl },
      reports: { delaySeconds: 0, smtpUrl: mailbox.smtpUrl },
      http: { rateLimitPerMinute: 0 },
    });
  });
  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
    await store?.drop();
  });

  async function organization(name: string) {
    const { token, organization: org } = await provisionOrganization(store.db, { name });
    const gql = caller(server, token);
    /** Every event of the organization in the feed, oldest first, read page by page. */
    const events = async (filter?: { types: string[] }): Promise<Event[]> => {
      const all: Event[] = [];
      let after: string | null = null;
      for (;;) {
        const page: { edges: { node: Event }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } = ok(await gql(EVENTS, { first: 3, after, filter })).infiniteEvents;
        all.push(...page.edges.map((e: { node: Event }) => e.node));
        if (!page.pageInfo.hasNextPage) return all;
        after = page.pageInfo.endCursor;
      }
    };
    const since = async (count: number) => (await events()).slice(count);
    return { token, org, gql, events, since };
  }

  it('customers: created, updated with the fields that changed, deleted; a write that changes nothing makes none', async () => {
    const { gql, events, org } = await organization('Customer Events');
    const id = ok(await gql(CUSTOMER, { input: { lastName: 'Iwu', city: 'Mesa' } })).createCustomer.id;
    ok(await gql(`mutation($id: ID!) { updateCustomer(id: $id, input: {phoneNumber: "555-0101", notes: "Dog in yard"}) { id } }`, { id }));
    ok(await gql(`mutation($id: ID!) { updateCustomer(id: $id, input: {city: "Mesa"}) { id } }`, { id }));
    ok(await gql(`mutation($id: ID!) { deleteCustomer(id: $id) { id } }`, { id }));
    const all = await events();
    expect(all.map((e) => [e.type, e.data])).toEqual([
      ['customer.created', { id }],
      ['customer.updated', { id, changes: ['phoneNumber', 'notes'] }],
      ['customer.deleted', { id }],
    ]);
    expect(all.every((e) => e.organizationId === org.id && /^evt_\d+$/.test(e.id))).toBe(true);
    const times = all.map((e) => Date.parse(e.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('visits: created, updated, completed once by whatever path, and the report sent', async () => {
    const { gql, events, since, token } = await organization('Visit Events');
    const customerId = ok(await gql(CUSTOMER, { input: { lastName: 'Haddad', email: 'haddad@customer.example', reportNotification: 'EMAIL' } })).createCustomer.id;
    const before = (await events()).length;
    const visit = ok(await gql(VISIT, { input: { customerId, startTime: new Date().toISOString() } })).createService.id;
    ok(await gql(UPDATE_VISIT, { id: visit, input: { notes: 'Backwashed filter' } }));
    const endTime = new Date().toISOString();
    ok(await gql(UPDATE_VISIT, { id: visit, input: { endTime, waterCondition: 'CLEAR' } }));
    const made = await since(before);
    expect(made.slice(0, 3).map((e) => [e.type, e.data])).toEqual([
      ['visit.created', { id: visit, customerId, startTime: expect.any(String) }],
      ['visit.updated', { id: visit, customerId, changes: ['notes'] }],
      ['visit.completed', { id: visit, customerId, endTime }],
    ]);
    // The report goes out (the worker's SMTP): its sending sets dateEmailed (an update) and makes visit_report.sent.
    const sent = await waitForEvents(events, (all) => all.some((e) => e.type === 'visit_report.sent'));
    expect(sent.filter((e) => e.type === 'visit_report.sent').map((e) => e.data)).toEqual([{ id: visit, channel: 'EMAIL' }]);
    expect(sent.find((e) => e.type === 'visit.updated' && (e.data.changes as string[]).includes('dateEmailed'))).toBeDefined();

    // A technician's device completes a visit by a sync push: the same event.
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    const pushedBefore = (await events()).length;
    const now = new Date().toISOString();
    const doc = { id: 'pushed-visit', customerId, newTechnicianId: tech.apiToken.userId, startTime: now, endTime: now, photos: [], createdAt: now, updatedAt: now };
    expect((await pushChanges(server, tech.token, 'services', [{ assumedMasterState: null, newDocumentState: doc }])).status).toBe(200);
    const pushed = (await since(pushedBefore)).filter((e) => e.data.id === 'pushed-visit');
    // One event for the push (a visit first synced completed is completed, not created); its report follows.
    expect(pushed[0]!.type).toBe('visit.completed');
    expect(pushed.filter((e) => e.type === 'visit.completed' || e.type === 'visit.created')).toHaveLength(1);
  });

  it('quotes: created, edited, sent, accepted or declined', async () => {
    const { gql, events } = await organization('Quote Events');
    const customerId = ok(await gql(CUSTOMER, { input: { lastName: 'Brandt' } })).createCustomer.id;
    const quote = async () =>
      ok(await gql(`mutation($c: ID!) { createQuote(input: {customerId: $c, title: "Heater", lineItems: [{description: "Heater", quantity: 1, unitPrice: 2400}]}) { id number } }`, { c: customerId })).createQuote as { id: string; number: string };
    const status = (id: string, s: string) => gql(`mutation($id: ID!, $s: QuoteStatus!) { updateQuote(id: $id, input: {status: $s}) { id } }`, { id, s });
    const a = await quote();
    ok(await gql(`mutation($id: ID!) { updateQuote(id: $id, input: {title: "Heat pump"}) { id } }`, { id: a.id }));
    ok(await status(a.id, 'SENT'));
    ok(await status(a.id, 'ACCEPTED'));
    const b = await quote();
    ok(await status(b.id, 'SENT'));
    ok(await status(b.id, 'DECLINED'));
    // A refused transition changes nothing, so it makes no event.
    expect((await status(b.id, 'ACCEPTED')).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const made = (await events()).filter((e) => e.type.startsWith('quote.'));
    expect(made.map((e) => [e.type, e.data.id])).toEqual([
      ['quote.created', a.id],
      ['quote.updated', a.id],
      ['quote.sent', a.id],
      ['quote.accepted', a.id],
      ['quote.created', b.id],
      ['quote.sent', b.id],
      ['quote.declined', b.id],
    ]);
    expect(made[1]!.data).toEqual({ id: a.id, customerId, changes: ['title'] });
    expect(made[3]!.data).toEqual({ id: a.id, customerId, number: a.number, acceptedAt: expect.any(String) });
  });

  it("inventory: a location's stock going to or below the reorder point makes one event per crossing, from GraphQL or a device", async () => {
    const { gql, events, token } = await organization('Stock Events');
    const truck = ok(await gql(`mutation { createInventoryLocation(input: {name: "Truck 1"}) { id } }`)).createInventoryLocation.id;
    const item = ok(
      await gql(`mutation($l: ID!) { createInventoryItem(input: {name: "Chlorine tabs", category: CHEMICAL, unitPrice: 3, reorderPoint: 5, locationId: $l, quantity: 10}) { id } }`, { l: truck }),
    ).createInventoryItem.id;
    const setTo = (quantity: number) => gql(`mutation($id: ID!, $q: Int!) { updateInventoryItem(id: $id, input: {quantity: $q, note: "count"}) { quantity } }`, { id: item, q: quantity });
    for (const q of [6, 4, 3, 8, 5]) ok(await setTo(q));
    let low = (await events()).filter((e) => e.type === 'inventory.low_stock');
    expect(low.map((e) => e.data)).toEqual([
      { id: `${item}@${truck}`, itemId: item, locationId: truck, quantity: 4 },
      { id: `${item}@${truck}`, itemId: item, locationId: truck, quantity: 5 },
    ]);
    // Back up, then a technician uses stock offline: the push crosses again.
    ok(await setTo(9));
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    const use = { id: 'use-1', itemId: item, locationId: truck, toLocationId: null, delta: -7, reason: 'USE', serviceId: null, note: null, dose: null };
    expect((await pushChanges(server, tech.token, 'stockMovements', [{ newDocumentState: use }])).status).toBe(200);
    low = (await events()).filter((e) => e.type === 'inventory.low_stock');
    expect(low.at(-1)!.data).toEqual({ id: `${item}@${truck}`, itemId: item, locationId: truck, quantity: 2 });
    expect(low).toHaveLength(3);
  });

  it("a bulk operation's changes make their records' events, and one bulk_operation.finished", async () => {
    const { gql, events, token } = await organization('Bulk Events');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(ok(await gql(CUSTOMER, { input: { lastName: `Bulk ${i}`, city: 'Tempe' } })).createCustomer.id);
    const started = await startBulk(server, token, { kind: 'CUSTOMERS_UPDATE', selection: { ids }, patch: { zone: 'North' } });
    expect(started.status).toBe(202);
    await waitForBulk(server, token, started.body.id);
    const all = await waitForEvents(events, (e) => e.some((x) => x.type === 'bulk_operation.finished'));
    const updated = all.filter((e) => e.type === 'customer.updated');
    expect(updated.map((e) => e.data.id).sort()).toEqual([...ids].sort());
    expect(updated.every((e) => JSON.stringify(e.data.changes) === '["zone"]')).toBe(true);
    expect(all.filter((e) => e.type === 'bulk_operation.finished').map((e) => e.data)).toEqual([{ id: started.body.id, kind: 'CUSTOMERS_UPDATE', status: 'SUCCEEDED' }]);
    expect(all.at(-1)!.type).toBe('bulk_operation.finished');
  });

  it('billing: invoices finalized, paid and voided, payments recorded and reversed, by the writes to their tables', async () => {
    const { org, events } = await organization('Billing Events');
    const db = store.db;
    await db.query(`insert into customers (org_id, id, last_name) values ($1, 'payer', 'Payer')`, [org.id]);
    const invoice = (id: string) =>
      db.query(
        `insert into invoices (org_id, id, customer_id, status, origin, currency, subtotal, tax, total, amount_paid, balance_due, tax_rounding)
         values ($1, $2, 'payer', 'DRAFT', 'MANUAL', 'USD', 10000, 0, 10000, 0, 10000, 'PER_INVOICE')`,
        [org.id, id],
      );
    await invoice('inv-1');
    await invoice('inv-2');
    await db.query(`update invoices set notes = 'draft edit' where org_id = $1 and id = 'inv-1'`, [org.id]);
    await db.query(`update invoices set status = 'OPEN', number = 'INV-1', finalized_at = now(), issue_date = current_date where org_id = $1 and id = 'inv-1'`, [org.id]);
    await db.query(`update invoices set status = 'OPEN', number = 'INV-2', finalized_at = now() where org_id = $1 and id = 'inv-2'`, [org.id]);
    await db.query(`insert into payments (org_id, id, customer_id, kind, amount, currency, method, received_at) values ($1, 'pay-1', 'payer', 'PAYMENT', 10000, 'USD', 'CHECK', now())`, [org.id]);
    await db.query(`update invoices set amount_paid = 10000, balance_due = 0, status = 'PAID' where org_id = $1 and id = 'inv-1'`, [org.id]);
    await db.query(
      `insert into payments (org_id, id, customer_id, kind, amount, currency, method, received_at, reverses_payment_id, reason) values ($1, 'rev-1', 'payer', 'REVERSAL', -10000, 'USD', 'CHECK', now(), 'pay-1', 'bounced')`,
      [org.id],
    );
    await db.query(`update invoices set status = 'VOID', voided_at = now(), void_reason = 'wrong customer' where org_id = $1 and id = 'inv-2'`, [org.id]);
    const billing = (await events()).filter((e) => /^(invoice|payment)\./.test(e.type));
    expect(billing.map((e) => [e.type, e.data])).toEqual([
      ['invoice.finalized', { id: 'inv-1', customerId: 'payer', number: 'INV-1' }],
      ['invoice.finalized', { id: 'inv-2', customerId: 'payer', number: 'INV-2' }],
      ['payment.recorded', { id: 'pay-1', customerId: 'payer' }],
      ['invoice.paid', { id: 'inv-1', customerId: 'payer', number: 'INV-1' }],
      ['payment.reversed', { id: 'rev-1', customerId: 'payer', reversesPaymentId: 'pay-1' }],
      ['invoice.voided', { id: 'inv-2', customerId: 'payer', number: 'INV-2' }],
    ]);
  });

  it('a change rolled back leaves no event, and an event never exists without its change', async () => {
    const { org, events } = await organization('Rolled Back');
    await expect(
      store.db.transaction(async (tx) => {
        await tx.query(`insert into customers (org_id, id, last_name) values ($1, 'ghost', 'Ghost')`, [org.id]);
        const { rows } = await tx.query<{ n: number }>(`select count(*)::int as n from events where org_id = $1`, [org.id]);
        expect(rows[0]!.n).toBe(1);
        throw new Error('the rest of the change failed');
      }),
    ).rejects.toThrow('the rest of the change failed');
    expect(await events()).toEqual([]);
    const { rows } = await store.db.query(`select id from customers where org_id = $1`, [org.id]);
    expect(rows).toEqual([]);
  });

  it('the feed: filtered by type, paged by cursors of this list only, the last 30 days', async () => {
    const { gql, events, org } = await organization('Feed Events');
    const other = await organization('Other Feed');
    for (let i = 0; i < 4; i++) ok(await gql(CUSTOMER, { input: { lastName: `Feed ${i}` } }));
    const id = ok(await gql(CUSTOMER, { input: { lastName: 'Feed 4' } })).createCustomer.id;
    ok(await gql(`mutation($id: ID!) { deleteCustomer(id: $id) { id } }`, { id }));
    expect((await events({ types: ['customer.deleted'] })).map((e) => e.data.id)).toEqual([id]);
    expect(await events()).toHaveLength(6);
    const first = ok(await gql(EVENTS, { first: 2 })).infiniteEvents;
    const foreign = await other.gql(EVENTS, { first: 2, after: first.pageInfo.endCursor });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const unknown = await gql(EVENTS, { first: 2, filter: { types: ['customer.exploded'] } });
    expect(unknown.errors?.[0]?.message).toMatch(/unknown event type customer\.exploded/);
    expect((await gql(EVENTS, { first: 101 })).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');

    // An event 31 days old is out of the feed, and the hourly pruning deletes it.
    await store.db.query(`update events set occurred_at = now() - interval '31 days' where org_id = $1 and data->>'id' = $2 and type = 'customer.deleted'`, [org.id, id]);
    expect(await events()).toHaveLength(5);
    expect(await pruneEvents(store.db, 30)).toBeGreaterThanOrEqual(1);
    const { rows } = await store.db.query(`select 1 from events where org_id = $1 and type = 'customer.deleted'`, [org.id]);
    expect(rows).toEqual([]);
  });

  it('every declared event type is documented in the events README', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../server/operations/events/README.md', import.meta.url), 'utf8');
    expect(EVENT_TYPES.filter((type) => !readme.includes(`\`${type}\``))).toEqual([]);
  });

  it.runIf(engine === 'postgres')('a cursor never skips an event committed late by a slow transaction', async () => {
    const { gql, events, org } = await organization('Late Events');
    ok(await gql(CUSTOMER, { input: { lastName: 'Early' } }));
    const slow = new pg.Client({ connectionString: store.url });
    await slow.connect();
    try {
      await slow.query('begin');
      await slow.query(`insert into customers (org_id, id, last_name) values ($1, 'slow-one', 'Slow')`, [org.id]);
      // Another writer of the organization meanwhile: it waits for the slow one (the feed lock), so it commits after it.
      const fast = gql(CUSTOMER, { input: { lastName: 'Fast' } });
      await sleep(300);
      const seen = await events();
      expect(seen.map((e) => e.type)).toEqual(['customer.created']);
      const cursor = ok(await gql(EVENTS, { first: 10 })).infiniteEvents.pageInfo.endCursor;
      await slow.query('commit');
      ok(await fast);
      const after = ok(await gql(EVENTS, { first: 10, after: cursor })).infiniteEvents.edges.map((e: { node: Event }) => e.node.data.id);
      expect(after[0]).toBe('slow-one');
      expect(after).toHaveLength(2);
    } finally {
      await slow.end();
    }
  });
});

async function waitForEvents(read: () => Promise<Event[]>, done: (events: Event[]) => boolean, timeoutMs = 30_000): Promise<Event[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const events = await read();
    if (done(events)) return events;
    if (Date.now() > end) throw new Error(`timed out; events: ${JSON.stringify(events.map((e) => e.type))}`);
    await sleep(100);
  }
}
