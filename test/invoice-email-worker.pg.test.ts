import type { ChildProcess } from 'node:child_process';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, ok } from './support/api.js';
import { draftThroughStorage, type FixtureLine } from './support/billing-fixtures.delivery.js';
import { endsWithThisProcess, finished, spawnBuiltServer, spawnServerBundle, waitForOutput } from './support/child.js';
import { engines, openTestStore, TEST_DATABASE_URL, type TestStore } from './support/engines.js';
import { startMailbox, type Mailbox } from './support/mailboxes.js';
import { sampleFiles, uploadFile } from './fixtures/files.js';
import { POPPLER, pdfImageCount, pdfText } from './support/poppler.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';
import { InvoicePdfPool } from '../server/operations/pdf/invoice-pdf-pool.js';
import type { InvoiceDocument } from '../server/operations/pdf/invoice-pdf-content.js';

/**
 * The invoice-email worker at volume: the PDFs attached are made on its PDF threads (the pool's
 * count of documents its threads answered) and read back with poppler, each with its own invoice's
 * number and balance; and the built server (its PDF thread is a bundle entry of its own), killed
 * mid-drain, leaves no email unsent: once the killed round's retry time passes, a new process
 * sends the rest, every invoice's email arriving at least once and no more than one round again.
 */
const Q = {
  customer: `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`,
  settings: `mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { autoSendInvoices invoicePrefix } }`,
  finalizeMany: `mutation($input: FinalizeInvoicesInput!) { finalizeInvoices(input: $input) { id number total } }`,
};

const LINES: FixtureLine[] = [
  { sourceType: 'VISIT', description: 'Weekly pool service', quantity: 1, unitPriceCents: 9500, date: '2026-10-06', serviceId: 'visit-1' },
  { sourceType: 'STOCK_MOVEMENT', description: 'Liquid chlorine (gal)', quantity: 2, unitPriceCents: 550, date: '2026-10-06', serviceId: 'visit-1' },
  { sourceType: 'MANUAL', description: 'Filter cartridge cleaning', quantity: 1, unitPriceCents: 4000 },
];

/** The worker's BATCH: a killed round sends at most this many emails again. */
const ROUND = 32;

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let organizations = 0;

/**
 * An organization with autoSendInvoices and `count` finalized invoices (so `count` emails queued);
 * their numbers. With `emails`, invoice i goes to a customer of emails[i % emails.length].
 */
async function queuedInvoices(server: TestServer, store: TestStore, count: number, prepare?: (token: string) => Promise<void>, emails = ['ana@reyes.example']): Promise<string[]> {
  const { token } = await newOrganization(store.db, 'Harbor Pools');
  await prepare?.(token);
  const admin = caller(server, token);
  const orgId = ok(await admin(`{ organization { id } }`)).organization.id;
  // Numbers of its own, so a mail is told from another organization's by its invoice's number.
  ok(await admin(Q.settings, { input: { autoSendInvoices: true, invoicePrefix: `H${++organizations}-` } }));
  const customerIds: string[] = [];
  for (const email of emails) {
    customerIds.push(
      ok(await admin(Q.customer, { input: { firstName: 'Ana', lastName: 'Reyes', streetAddress: '5 Bay Rd', city: 'Tampa', state: 'FL', zipCode: '33601', email } })).createCustomer.id,
    );
  }
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await draftThroughStorage(store.db, orgId, customerIds[i % customerIds.length]!, LINES));
  const numbers: string[] = [];
  for (let i = 0; i < ids.length; i += 50) numbers.push(...ok(await admin(Q.finalizeMany, { input: { ids: ids.slice(i, i + 50) } })).finalizeInvoices.map((inv: { number: string }) => inv.number));
  return numbers;
}

const numberIn = (mail: ParsedMail) => /^Invoice (\S+) from/.exec(mail.subject ?? '')?.[1];

/** Each mail's one attachment is a PDF that poppler reads, naming the mail's invoice. */
async function expectPdfsOfTheirInvoices(mails: ParsedMail[]): Promise<void> {
  for (const mail of mails) {
    expect(mail.attachments).toHaveLength(1);
    const text = (await pdfText(mail.attachments[0]!.content)).replace(/[ \t]+/g, ' ');
    for (const expected of [`Invoice ${numberIn(mail)} · Page 1 of 1`, 'Ana Reyes', 'Weekly pool service', 'Balance due', '$146.00']) expect(text, expected).toContain(expected);
  }
}

describe.runIf(POPPLER).each(engines)('invoice email worker on %s', (engine) => {
  let store: TestStore;
  let box: Mailbox;
  let server: TestServer;

  beforeAll(async () => {
    store = await openTestStore(engine);
    box = await startMailbox();
    server = await startTestServer(store.db, { http: { rateLimitPerMinute: 0 }, invoices: { smtpUrl: box.smtpUrl, pollMs: 50 } });
  });
  afterAll(async () => {
    await server?.close();
    await box?.close();
    await store?.drop();
  });

  it("attaches PDFs made on its PDF thread, each its own invoice's, and marks every email SENT and invoice sent", async () => {
    const numbers = await queuedInvoices(server, store, 12);
    await until('every email', () => numbers.every((n) => box.mails.some((m) => numberIn(m) === n)));
    const mails = box.mails.filter((m) => numbers.includes(numberIn(m)!));
    expect(mails).toHaveLength(12);
    // The pool counts only documents a thread answered: none was made on this thread.
    expect(server.invoices!.pdfs.rendered).toBe(12);
    await expectPdfsOfTheirInvoices(mails);
    await until('the round marked', async () => {
      const { rows } = await store.db.query<{ status: string; sent: boolean }>(
        `select o.status, i.sent_at is not null as sent from outbox o join invoices i on i.org_id = o.org_id and i.id = o.invoice_id where i.number = any($1)`,
        [numbers],
      );
      return rows.length === 12 && rows.every((r) => r.status === 'SENT' && r.sent);
    });
  });
  it('marks each accepted email SENT while a slow one of its round is still being sent', async () => {
    // A round's emails marked only once all its sends were done: a send held longer than the
    // round's claim would have the accepted ones claimed and sent again by another process.
    box.hold('slow@reyes.example');
    try {
      const numbers = await queuedInvoices(server, store, 6, undefined, ['slow@reyes.example', 'ana@reyes.example']);
      const statuses = async () =>
        (
          await store.db.query<{ number: string; status: string; email: string }>(
            `select i.number, o.status, o.recipient as email from outbox o join invoices i on i.org_id = o.org_id and i.id = o.invoice_id where i.number = any($1)`,
            [numbers],
          )
        ).rows;
      await until('the emails not held marked SENT', async () => {
        const rows = await statuses();
        return rows.filter((r) => r.email === 'ana@reyes.example').every((r) => r.status === 'SENT') && rows.length === 6;
      });
      // The held ones are still in the mail server's hands, so still PENDING.
      expect((await statuses()).filter((r) => r.email === 'slow@reyes.example').map((r) => r.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
      box.release('slow@reyes.example');
      await until('the held ones sent and marked too', async () => (await statuses()).every((r) => r.status === 'SENT'));
    } finally {
      box.release('slow@reyes.example');
    }
  });
  it("sends the organization's logo to the PDF thread and back in the PDF", async () => {
    const before = server.invoices!.pdfs.rendered;
    const numbers = await queuedInvoices(server, store, 3, async (token) => {
      expect((await uploadFile(`${server.url}/organization/logo`, token, sampleFiles.png())).status).toBe(200);
    });
    await until('every email', () => numbers.every((n) => box.mails.some((m) => numberIn(m) === n)));
    const mails = box.mails.filter((m) => numbers.includes(numberIn(m)!));
    expect(server.invoices!.pdfs.rendered - before).toBe(3);
    await expectPdfsOfTheirInvoices(mails);
    for (const mail of mails) expect(await pdfImageCount(mail.attachments[0]!.content)).toBe(1);
  });
});

describe.runIf(POPPLER && TEST_DATABASE_URL)('the built server killed while it drains invoice emails', () => {
  let store: TestStore;
  let box: Mailbox;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    store = await openTestStore('postgres');
    box = await startMailbox();
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await box?.close();
    await store?.drop();
  });

  /** The server as `npm start` runs it, on the test's database and mailbox; resolves once it listens. */
  async function serve(build: boolean): Promise<ChildProcess> {
    const env = { PORT: '0', HOST: '127.0.0.1', SEED_DEMO_ORG: 'false', LOG_LEVEL: 'warn', DATABASE_URL: store.url!, SMTP_URL: box.smtpUrl, BULK_POLL_MS: '50', INVOICE_PDF_WORKERS: '1' };
    const child = endsWithThisProcess(build ? await spawnBuiltServer(env) : spawnServerBundle(env));
    children.push(child);
    await waitForOutput(child, /listening on/, 120_000);
    child.stderr!.resume();
    return child;
  }

  it('sends every email at least once, and at most one round twice', async () => {
    // Queued through a test server that has no invoice worker: nothing is sent until the built server starts.
    const queuing = await startTestServer(store.db, { http: { rateLimitPerMinute: 0 } });
    const numbers = await queuedInvoices(queuing, store, 90).finally(() => queuing.close());

    const first = await serve(true);
    const killed = finished(first);
    await until('the first emails', () => box.mails.length >= 5);
    first.kill('SIGKILL');
    await killed;
    const atKill = box.mails.length;
    expect(atKill, 'killed mid-drain').toBeLessThan(numbers.length);

    // What the killed process had claimed waits for its retry time (30 s): here it has passed.
    await store.db.query(`update outbox set next_attempt_at = now() where status = 'PENDING'`);
    const second = await serve(false);
    await until('every invoice emailed', () => numbers.every((n) => box.mails.some((m) => numberIn(m) === n)));
    await until('every email marked SENT', async () => (await store.db.query<{ n: number }>(`select count(*)::int as n from outbox where status <> 'SENT'`)).rows[0]!.n === 0);
    second.kill('SIGTERM');
    await finished(second);

    const mails = box.mails.filter((m) => numbers.includes(numberIn(m)!));
    expect(mails.length - numbers.length, `${mails.length} emails for ${numbers.length} invoices, ${atKill} of them before the kill`).toBeLessThanOrEqual(ROUND);
    await expectPdfsOfTheirInvoices(mails);
    const unsent = await store.db.query(`select id from invoices where number = any($1) and sent_at is null`, [numbers]);
    expect(unsent.rows).toEqual([]);
  });
});

describe.runIf(POPPLER)('the PDF threads', () => {
  const document = (currency: string): InvoiceDocument => ({
    organization: { name: 'Harbor Pools', contact: ['1 Dock St'], timezone: 'America/New_York', logoKey: null },
    invoice: {
      number: 'HP-0001', status: 'OPEN', currency, issueDate: '2026-11-01', dueDate: '2026-12-01', periodStart: null, periodEnd: null, createdAt: '2026-11-01T12:00:00.000Z',
      subtotal: 95, tax: 0, taxLabel: 'Tax', total: 95, amountPaid: 0, balanceDue: 95, notes: null,
    },
    customer: { name: 'Ana Reyes', billTo: ['Ana Reyes', '5 Bay Rd'], serviceAddress: null },
    groups: [{ visitDate: null, lines: [{ description: 'Weekly pool service', quantity: 1, unitPrice: 95, amount: 95, material: false }] }],
  });

  it('a document its thread cannot render fails alone; the next is made, by a thread, in order', async () => {
    const pool = new InvoicePdfPool(1);
    try {
      const [bad, good] = await Promise.allSettled([pool.render(document('NOT A CURRENCY'), null), pool.render(document('USD'), null)]);
      expect(bad.status).toBe('rejected');
      expect((bad as PromiseRejectedResult).reason.message).toMatch(/rendering the invoice PDF failed: .*currency/i);
      expect(good.status).toBe('fulfilled');
      const text = await pdfText((good as PromiseFulfilledResult<Buffer>).value);
      for (const expected of ['Harbor Pools', 'HP-0001', 'Weekly pool service', '$95.00']) expect(text).toContain(expected);
      expect(pool.rendered).toBe(1);
      expect(pool.started).toBe(1); // the thread that failed one document made the next
    } finally {
      await pool.close();
    }
  });
});
