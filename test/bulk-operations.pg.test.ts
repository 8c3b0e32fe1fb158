import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'csv-parse/sync';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessenger } from '../server/jobs/messenger.js';
import { BulkWorker, WorkerCrash } from '../server/jobs/worker.js';
import { openStore } from '../server/storage/open.js';
import { caller, ok, tokenFor } from './support/api.js';
import { getBulk, startBulk, waitForBulk } from './support/bulk.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { errorCodes, newOrganization, startTestServer, type TestServer } from './support/server.js';
import { pullAll } from './support/sync.js';

/** Bulk operations end to end: every kind, progress, messages, exports, crashes, bad input. */
describe.each(engines)('bulk operations on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let smtp: SMTPServer;
  const mails: { to: string; subject: string; text: string }[] = [];
  let sms: Server;
  const texts: { to: string; body: string }[] = [];

  beforeAll(async () => {
    store = await openTestStore(engine);
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        simpleParser(stream).then((mail) => {
          mails.push({ to: (mail.to as { text: string }).text, subject: mail.subject ?? '', text: (mail.text ?? '').trim() });
          callback();
        }, callback);
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    sms = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => {
        texts.push(JSON.parse(body));
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', () => resolve()));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    server = await startTestServer(store.db, {
      worker: {
        chunkSize: 100,
        smtpUrl: `smtp://127.0.0.1:${smtpPort}?ignoreTLS=true`,
        smsWebhookUrl: `http://127.0.0.1:${(sms.address() as AddressInfo).port}/sms`,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
    await new Promise<void>((resolve) => sms?.close(() => resolve()));
    await store?.drop();
  });

  const org = async (name: string) => {
    const created = await newOrganization(store.db, name);
    return { ...created, gql: caller(server, created.token) };
  };
  const count = async (sql: string, params: unknown[]) => (await store.db.query<{ n: number }>(sql, params)).rows[0]!.n;

  it('CUSTOMERS_CREATE creates every valid item, counts and lists the invalid ones, and the change feed carries them', async () => {
    const { token, org: o } = await org('Create Pools');
    const items = Array.from({ length: 250 }, (_, i) => ({ firstName: `F${i}`, lastName: `Bulk${i}`, email: `c${i}@example.com`, tags: ['bulk'] }));
    items[7] = { firstName: 'No last name' } as never;
    items[123] = { lastName: 'x', shoeSize: 44 } as never;
    const started = await startBulk(server, token, { kind: 'CUSTOMERS_CREATE', items });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'CUSTOMERS_CREATE', status: 'QUEUED', total: 250, processed: 0, resultUrl: null });
    const done = await waitForBulk(server, token, started.body.id);
    expect(done).toMatchObject({ status: 'PARTIAL', total: 250, processed: 250, succeeded: 248, failed: 2, skipped: 0 });
    expect(done.errors).toEqual([
      expect.objectContaining({ index: 7, code: 'BAD_USER_INPUT', message: expect.stringContaining('lastName') }),
      expect.objectContaining({ index: 123, code: 'BAD_USER_INPUT', message: expect.stringContaining('shoeSize') }),
    ]);
    expect(done.startedAt).toBeTruthy();
    expect(done.finishedAt).toBeTruthy();
    expect(await count('select count(*)::int8 as n from customers where org_id = $1', [o.id])).toBe(248);
    expect((await pullAll(server, token, 'customers')).documents).toHaveLength(248);
  });

  it('CUSTOMERS_UPDATE by selector, CUSTOMERS_DELETE by ids, and CUSTOMERS_EXPORT of what remains', async () => {
    const { token, gql, org: o } = await org('Update Pools');
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(ok(await gql(`mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { id } }`, { i: { lastName: `U${i}`, city: i % 3 ? 'Mesa' : 'Tempe', notes: 'Has, a comma' } })).createCustomer.id);
    }
    const update = await startBulk(server, token, { kind: 'CUSTOMERS_UPDATE', selection: { selector: { filters: { city: { eq: 'Mesa' } } } }, patch: { zone: 'East', readyForInvoice: true } });
    expect(await waitForBulk(server, token, update.body.id)).toMatchObject({ status: 'SUCCEEDED', total: 20, succeeded: 20 });
    expect(await count(`select count(*)::int8 as n from customers where org_id = $1 and zone = 'East' and ready_for_invoice`, [o.id])).toBe(20);
    const del = await startBulk(server, token, { kind: 'CUSTOMERS_DELETE', selection: { ids: ids.slice(0, 5) } });
    expect(await waitForBulk(server, token, del.body.id)).toMatchObject({ status: 'SUCCEEDED', succeeded: 5 });
    expect(await count('select count(*)::int8 as n from customers where org_id = $1 and _deleted', [o.id])).toBe(5);

    const exported = await startBulk(server, token, { kind: 'CUSTOMERS_EXPORT' });
    const done = await waitForBulk(server, token, exported.body.id);
    expect(done).toMatchObject({ status: 'SUCCEEDED', total: 25, processed: 25, resultUrl: expect.stringContaining('/files/') });
    const csv = await (await fetch(done.resultUrl)).text();
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.id).sort()).toEqual(ids.slice(5).sort());
    expect(rows.find((r) => r.id === ids[6])).toMatchObject({ lastName: 'U6', city: 'Tempe', zone: '' });
    expect(rows.filter((r) => r.zone === 'East')).toHaveLength(ids.slice(5).filter((_, i) => (i + 5) % 3 !== 0).length);
  });

  it('CUSTOMERS_EXPORT leaves no formula in any part of a cell a spreadsheet splits on ";" (tags, names)', async () => {
    const { token, gql } = await org('Formula Pools');
    const tags = ['-2+3+cmd|calc', "@SUM(1+9)*cmd|' /C calc'!A0", 'salt'];
    const id = ok(await gql(`mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { id } }`, { i: { lastName: 'Smith;=1+cmd|calc!A0', tags } })).createCustomer.id;
    const exported = await startBulk(server, token, { kind: 'CUSTOMERS_EXPORT' });
    const done = await waitForBulk(server, token, exported.body.id);
    const rows = parse(await (await fetch(done.resultUrl)).text(), { columns: true }) as Record<string, string>[];
    const row = rows.find((r) => r.id === id)!;
    expect(row.lastName).toBe("Smith;'=1+cmd|calc!A0");
    expect(row.tags).toBe("'-2+3+cmd|calc;'@SUM(1+9)*cmd|' /C calc'!A0;salt");
    // What a European spreadsheet reads: every part between separators, none starting a formula.
    expect(runnableParts([row])).toEqual([]);
  });

  it('every other export (visits, stock, quotes) leaves no formula in any part of a cell either', async () => {
    const { token, gql } = await org('Formula Exports');
    const hostile = 'Pump;=1+cmd|calc!A0\n@SUM(1+9)';
    const customerId = ok(await gql(`mutation { createCustomer(input: {lastName: "-2+3;=cmd"}) { id } }`)).createCustomer.id;
    const visit = ok(await gql(`mutation($n: String) { createService(input: {notes: $n}) { id } }`, { n: hostile })).createService.id;
    ok(await gql(`mutation($n: String!) { createInventoryItem(input: {name: $n, category: SUPPLIES, unitPrice: 5}) { id } }`, { n: hostile }));
    ok(await gql(`mutation($i: CreateQuoteInput!) { createQuote(input: $i) { id } }`, { i: { customerId, title: hostile, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }] } }));
    const exported = async (kind: string) => parse(await (await fetch((await waitForBulk(server, token, (await startBulk(server, token, { kind })).body.id)).resultUrl)).text(), { columns: true }) as Record<string, string>[];
    const visits = await exported('SERVICES_EXPORT');
    expect(visits.find((r) => r.id === visit)!.notes).toBe("Pump;'=1+cmd|calc!A0\n'@SUM(1+9)");
    const stock = await exported('INVENTORY_EXPORT');
    expect(stock.map((r) => [r.name, r.unitPrice])).toEqual([["Pump;'=1+cmd|calc!A0\n'@SUM(1+9)", '5']]);
    const quotesCsv = await fetch(`${server.url}/quotes/export/csv`, { headers: { authorization: `Bearer ${token}` } });
    const quotes = parse(await quotesCsv.text(), { columns: true }) as Record<string, string>[];
    expect(quotes.map((r) => [r.title, r['customer name']])).toEqual([["Pump;'=1+cmd|calc!A0\n'@SUM(1+9)", "'-2+3;'=cmd"]]);
    expect(runnableParts([...visits, ...stock, ...quotes])).toEqual([]);
  });

  it('CUSTOMERS_EMAIL reaches a real SMTP server with the template filled in; customers without email are skipped', async () => {
    const { token, gql } = await org('Mail Pools');
    const make = (i: CreateInput) => gql(`mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { id } }`, { i });
    type CreateInput = Record<string, unknown>;
    ok(await make({ firstName: 'Ann', lastName: 'One', email: 'ann@example.com' }));
    ok(await make({ firstName: 'Bob', lastName: 'Two', alternateEmail: 'bob@example.com' }));
    ok(await make({ firstName: 'Cy', lastName: 'Three' }));
    const before = mails.length;
    const started = await startBulk(server, token, {
      kind: 'CUSTOMERS_EMAIL',
      selection: { selector: {} },
      subject: 'Service for {{firstName}}',
      body: 'Hi {{firstName}} {{lastName}}, your pool is due.',
    });
    expect(await waitForBulk(server, token, started.body.id)).toMatchObject({ status: 'SUCCEEDED', total: 3, succeeded: 2, skipped: 1, failed: 0 });
    const received = mails.slice(before).sort((a, b) => a.to.localeCompare(b.to));
    expect(received).toEqual([
      { to: 'ann@example.com', subject: 'Service for Ann', text: 'Hi Ann One, your pool is due.' },
      { to: 'bob@example.com', subject: 'Service for Bob', text: 'Hi Bob Two, your pool is due.' },
    ]);
    const outbox = ok(await caller(server, token)(`query($op: ID) { outboxMessages(operationId: $op) { edges { node { channel recipient status sentAt } } } }`, { op: started.body.id }))
      .outboxMessages.edges.map((e: any) => e.node);
    expect(outbox).toHaveLength(2);
    expect(outbox.every((m: any) => m.status === 'SENT' && m.sentAt)).toBe(true);
  });

  it('CUSTOMERS_TEXT posts to the SMS webhook for phones with SMS enabled; without a webhook they stay in the outbox', async () => {
    const { token, gql, org: o } = await org('Text Pools');
    const make = (i: Record<string, unknown>) => gql(`mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { id } }`, { i });
    ok(await make({ firstName: 'Di', lastName: 'Sms', phoneNumber: '111', alternatePhoneNumber: '222', alternatePhoneNumberEnableSMS: true }));
    ok(await make({ firstName: 'Ed', lastName: 'NoSms', phoneNumber: '333', phoneNumberEnableSMS: false }));
    const before = texts.length;
    const started = await startBulk(server, token, { kind: 'CUSTOMERS_TEXT', selection: { selector: {} }, body: 'Hi {{firstName}}, we come tomorrow.' });
    expect(await waitForBulk(server, token, started.body.id)).toMatchObject({ status: 'SUCCEEDED', succeeded: 1, skipped: 1 });
    expect(texts.slice(before)).toEqual([expect.objectContaining({ to: '222', body: 'Hi Di, we come tomorrow.' })]);

    // A server with no sender configured keeps the messages, readable through GraphQL.
    const quiet = await startTestServer(store.db, { worker: { chunkSize: 100 } });
    try {
      const queued = await startBulk(quiet, token, { kind: 'CUSTOMERS_TEXT', selection: { selector: {} }, body: 'Stored {{lastName}}' });
      await waitForBulk(quiet, token, queued.body.id);
      const stored = ok(await caller(quiet, token)(`query($op: ID) { outboxMessages(operationId: $op, channel: SMS) { edges { node { recipient body status } } } }`, { op: queued.body.id }))
        .outboxMessages.edges.map((e: any) => e.node);
      expect(stored).toEqual([{ recipient: '222', body: 'Stored Sms', status: expect.stringMatching(/STORED|SENT/) }]);
      void o;
    } finally {
      await quiet.close();
    }
  });

  it('inventory and visits: bulk edit and export', async () => {
    const { token, gql, org: o } = await org('Stock Pools');
    for (const [name, category] of [['Acid', 'CHEMICAL'], ['Brush', 'SUPPLIES'], ['Pump', 'EQUIPMENT']] as const) {
      ok(await gql(`mutation($n: String!, $c: InventoryCategory!) { createInventoryItem(input: {name: $n, category: $c, unitPrice: 10}) { id } }`, { n: name, c: category }));
    }
    const edit = await startBulk(server, token, { kind: 'INVENTORY_UPDATE', selection: { filter: { category: 'CHEMICAL' } }, patch: { unitPrice: 12.5, reorderPoint: 4 } });
    expect(await waitForBulk(server, token, edit.body.id)).toMatchObject({ status: 'SUCCEEDED', succeeded: 1 });
    const items = await startBulk(server, token, { kind: 'INVENTORY_EXPORT' });
    const itemRows = parse(await (await fetch((await waitForBulk(server, token, items.body.id)).resultUrl)).text(), { columns: true }) as Record<string, string>[];
    expect(itemRows.map((r) => [r.name, r.unitPrice, r.reorderPoint])).toEqual([['Acid', '12.5', '4'], ['Brush', '10', ''], ['Pump', '10', '']]);

    const visits: string[] = [];
    for (let i = 0; i < 4; i++) visits.push(ok(await gql(`mutation($n: String) { createService(input: {notes: $n, billingStatus: "NOT_BILLED"}) { id } }`, { n: `v${i}` })).createService.id);
    const bill = await startBulk(server, token, { kind: 'SERVICES_UPDATE', selection: { ids: visits.slice(0, 3) }, patch: { billingStatus: 'READY' } });
    expect(await waitForBulk(server, token, bill.body.id)).toMatchObject({ status: 'SUCCEEDED', succeeded: 3 });
    const exp = await startBulk(server, token, { kind: 'SERVICES_EXPORT', selection: { selector: { filters: { billingStatus: { equals: 'READY' } } } } });
    const visitRows = parse(await (await fetch((await waitForBulk(server, token, exp.body.id)).resultUrl)).text(), { columns: true }) as Record<string, string>[];
    expect(visitRows.map((r) => r.id).sort()).toEqual(visits.slice(0, 3).sort());
    expect(await count(`select count(*)::int8 as n from services where org_id = $1 and billing_status = 'READY'`, [o.id])).toBe(3);
  });

  it('a worker killed mid-operation is taken over; every item is applied exactly once', async () => {
    const { token, org: o } = await org('Crash Pools');
    await server.worker!.stop(); // only the workers of this test may touch the job
    // A separate server without a worker queues the job; then a worker that dies in chunk 3.
    const queueOnly = await startTestServer(store.db);
    const items = Array.from({ length: 1000 }, (_, i) => ({ lastName: `Crash${i}` }));
    const started = await startBulk(queueOnly, token, { kind: 'CUSTOMERS_CREATE', items });
    await queueOnly.close();
    const crashing = new BulkWorker({
      db: store.db, blobs: server.blobs, logger: pino({ level: 'silent' }), messenger: createMessenger({ emailFrom: 'x@y' }),
      chunkSize: 200, pollMs: 20, staleMs: 300,
      beforeChunkCommit: (op, chunk) => {
        if (op.id === started.body.id && chunk === 2) throw new WorkerCrash('killed');
      },
    });
    crashing.start();
    for (let i = 0; i < 200 && (await getBulk(server, token, started.body.id)).processed < 400; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 200));
    await crashing.stop();
    const halfway = await getBulk(server, token, started.body.id);
    expect(halfway).toMatchObject({ status: 'RUNNING', processed: 400 });
    expect(await count('select count(*)::int8 as n from customers where org_id = $1', [o.id])).toBe(400);
    // Another worker takes the silent job over after staleMs and finishes it.
    const rescuer = new BulkWorker({ db: store.db, blobs: server.blobs, logger: pino({ level: 'silent' }), messenger: createMessenger({ emailFrom: 'x@y' }), chunkSize: 200, pollMs: 20, staleMs: 300 });
    rescuer.start();
    try {
      expect(await waitForBulk(server, token, started.body.id)).toMatchObject({ status: 'SUCCEEDED', processed: 1000, succeeded: 1000 });
    } finally {
      await rescuer.stop();
      server.worker!.start();
    }
    expect(await count('select count(*)::int8 as n from customers where org_id = $1', [o.id])).toBe(1000);
    expect(await count(`select count(distinct last_name)::int8 as n from customers where org_id = $1`, [o.id])).toBe(1000);
  });

  it.runIf(engine === 'postgres')('two workers on their own connections to one PostgreSQL (as two server processes) share jobs without doing any twice', async () => {
    const { token, org: o } = await org('Shared Pools');
    await server.worker!.stop();
    const queueOnly = await startTestServer(store.db);
    const jobs = [];
    for (let j = 0; j < 6; j++) {
      jobs.push((await startBulk(queueOnly, token, { kind: 'CUSTOMERS_CREATE', items: Array.from({ length: 300 }, (_, i) => ({ lastName: `J${j}-${i}` })) })).body.id);
    }
    await queueOnly.close();
    const dbA = await openStore({ databaseUrl: store.url });
    const dbB = await openStore({ databaseUrl: store.url });
    const make = (db: typeof dbA) => new BulkWorker({ db, blobs: server.blobs, logger: pino({ level: 'silent' }), messenger: createMessenger({ emailFrom: 'x@y' }), chunkSize: 50, pollMs: 10 });
    const [a, b] = [make(dbA), make(dbB)];
    a.start();
    b.start();
    try {
      for (const id of jobs) expect(await waitForBulk(server, token, id)).toMatchObject({ status: 'SUCCEEDED', succeeded: 300 });
    } finally {
      await a.stop();
      await b.stop();
      await dbA.close();
      await dbB.close();
      server.worker!.start();
    }
    expect(await count('select count(*)::int8 as n from customers where org_id = $1', [o.id])).toBe(1800);
  });

  it('bad requests are refused clearly and change nothing; an Idempotency-Key returns the same operation', async () => {
    const { token, org: o } = await org('Refusing Pools');
    const rival = await org('Other Pools');
    const foreign = ok(await rival.gql(`mutation { createCustomer(input: {lastName: "Theirs"}) { id } }`)).createCustomer.id;
    const ops = async () => count('select count(*)::int8 as n from bulk_operations where org_id = $1', [o.id]);
    const cases: [unknown, number, string][] = [
      [{ kind: 'CUSTOMERS_EXPLODE' }, 400, 'BAD_USER_INPUT'],
      [{ kind: 'CUSTOMERS_CREATE', items: Array.from({ length: 10_001 }, () => ({ lastName: 'x' })) }, 400, 'BAD_USER_INPUT'],
      [{ kind: 'CUSTOMERS_CREATE', items: [] }, 400, 'BAD_USER_INPUT'],
      [{ kind: 'CUSTOMERS_DELETE', selection: { ids: [foreign] } }, 400, 'BAD_USER_INPUT'],
      [{ kind: 'CUSTOMERS_UPDATE', selection: { ids: [foreign] }, patch: { zone: 'x' } }, 400, 'BAD_USER_INPUT'],
      [{ kind: 'CUSTOMERS_UPDATE', selection: { selector: {} }, patch: { shoeSize: 1 } }, 400, 'BAD_USER_INPUT'],
      [{ kind: 'CUSTOMERS_EMAIL', selection: { selector: {} }, subject: 'x' }, 400, 'BAD_USER_INPUT'],
    ];
    for (const [body, status, code] of cases) {
      const res = await startBulk(server, token, body);
      expect([res.status, res.body.error?.code], JSON.stringify(body).slice(0, 80)).toEqual([status, code]);
    }
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    const forbidden = await startBulk(server, tech.token, { kind: 'CUSTOMERS_DELETE', selection: { selector: {} } });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(await ops()).toBe(0);
    expect(await count('select count(*)::int8 as n from customers where org_id = $1 and _deleted', [rival.org.id])).toBe(0);

    const first = await startBulk(server, token, { kind: 'CUSTOMERS_CREATE', items: [{ lastName: 'Once' }] }, 'retry-key-1');
    const again = await startBulk(server, token, { kind: 'CUSTOMERS_CREATE', items: [{ lastName: 'Once' }] }, 'retry-key-1');
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    await waitForBulk(server, token, first.body.id);
    expect(await count(`select count(*)::int8 as n from customers where org_id = $1 and last_name = 'Once'`, [o.id])).toBe(1);
    expect((await fetch(`${server.url}/bulk-operations/${first.body.id}`, { headers: { authorization: `Bearer ${rival.token}` } })).status).toBe(404);
  });

  it('GraphQL mirrors the interface: start, poll, list, cancel', async () => {
    const { token, gql } = await org('Graph Pools');
    const started = ok(await gql(`mutation($i: StartBulkOperationInput!) { startBulkOperation(input: $i) { id kind status total } }`, {
      i: { kind: 'CUSTOMERS_CREATE', payload: { items: [{ lastName: 'A' }, { lastName: 'B' }] } },
    })).startBulkOperation;
    expect(started).toMatchObject({ kind: 'CUSTOMERS_CREATE', total: 2 });
    await waitForBulk(server, token, started.id);
    const polled = ok(await gql(`query($id: ID!) { bulkOperation(id: $id) { status processed succeeded errors { code } resultUrl } }`, { id: started.id })).bulkOperation;
    expect(polled).toEqual({ status: 'SUCCEEDED', processed: 2, succeeded: 2, errors: [], resultUrl: null });
    const listed = ok(await gql(`{ bulkOperations(status: SUCCEEDED) { edges { node { id } } } }`)).bulkOperations.edges.map((e: any) => e.node.id);
    expect(listed).toEqual([started.id]);
    // Cancel one no worker has reached: queued on a server without a worker, while this suite's
    // worker (which shares the database, so would claim it) is stopped.
    await server.worker!.stop();
    const idle = await startTestServer(store.db);
    try {
      const queued = ok(await caller(idle, token)(`mutation { startBulkOperation(input: {kind: "CUSTOMERS_EXPORT"}) { id status } }`)).startBulkOperation;
      expect(queued.status).toBe('QUEUED');
      const cancelled = ok(await caller(idle, token)(`mutation($id: ID!) { cancelBulkOperation(id: $id) { status finishedAt } }`, { id: queued.id })).cancelBulkOperation;
      expect(cancelled.status).toBe('CANCELLED');
    } finally {
      await idle.close();
      server.worker!.start();
    }
    expect(errorCodes(await gql(`{ bulkOperation(id: "nope") { id } }`))).toEqual(['NOT_FOUND']);
  });
});

/** The parts of these CSV rows' cells a spreadsheet splitting on ";", tabs and line breaks would run as a formula. */
function runnableParts(rows: Record<string, string>[]): string[] {
  return rows.flatMap((row) => Object.values(row)).flatMap((cell) => cell.split(/[;\t\r\n]/)).filter((part) => /^[ "]*[=+\-@]/.test(part));
}
