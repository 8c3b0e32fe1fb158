import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHashOf } from '../server/operations/billing/invoice-links.js';
import { caller, ok, tokenFor } from './support/api.js';
import { applyPaymentThroughStorage } from './support/billing-fixtures.billing.js';
import { draftThroughStorage, type FixtureLine } from './support/billing-fixtures.delivery.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { startMailbox, type Mailbox } from './support/mailboxes.js';
import { POPPLER, pdfLayoutText, pdfText } from './support/poppler.js';
import { errorCodes, newOrganization, startTestServer, type TestServer } from './support/server.js';

/**
 * Delivering invoices, as the office and the customer see it: the invoice's PDF read back with
 * poppler (number, who it is billed to, lines under each visit's date, chemicals, tax, total, paid,
 * balance), the email sendInvoice sends (one per call, to the billing email with the CC copied and
 * the PDF attached), the link in it opening the invoice's page until it is revoked or expires, a
 * draft refused, and finalizing with autoSendInvoices emailing each invoice once.
 */
const Q = {
  customer: `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`,
  org: `mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { id } }`,
  settings: `mutation($input: UpdateOrganizationSettingsInput!) { updateOrganizationSettings(input: $input) { invoicePrefix autoSendInvoices } }`,
  finalize: `mutation($id: ID!) { finalizeInvoice(id: $id) { id number status total balanceDue } }`,
  finalizeMany: `mutation($input: FinalizeInvoicesInput!) { finalizeInvoices(input: $input) { id number } }`,
  invoice: `query($id: ID!) { invoice(selector: {id: $id}) { id number status sentAt pdfUrl } }`,
  send: `mutation($id: ID!) { sendInvoice(id: $id) { id number status } }`,
  revoke: `mutation($id: ID!) { revokeInvoiceLinks(invoiceId: $id) }`,
  outbox: `query { outboxMessages(first: 50) { edges { node { invoiceId recipient cc body status } } } }`,
};

/** Two visits in October (the second's acid included), and a manual line; 8.25% tax on all. */
const LINES: FixtureLine[] = [
  { sourceType: 'VISIT', description: 'Weekly pool service', quantity: 1, unitPriceCents: 9500, date: '2026-10-06', serviceId: 'visit-1', taxRate: 8.25 },
  { sourceType: 'STOCK_MOVEMENT', description: 'Liquid chlorine (gal)', quantity: 2, unitPriceCents: 550, date: '2026-10-06', serviceId: 'visit-1', taxRate: 8.25 },
  { sourceType: 'VISIT', description: 'Weekly pool service', quantity: 1, unitPriceCents: 9500, date: '2026-10-13', serviceId: 'visit-2', taxRate: 8.25 },
  { sourceType: 'STOCK_MOVEMENT', description: 'Muriatic acid (qt)', quantity: 1, unitPriceCents: 0, date: '2026-10-13', serviceId: 'visit-2', taxRate: 8.25 },
  { sourceType: 'MANUAL', description: 'Filter cartridge cleaning', quantity: 1, unitPriceCents: 4000, taxRate: 8.25 },
];
// Subtotal 95 + 11 + 95 + 0 + 40 = 241.00; tax 8.25% = 19.8825, rounded once: 19.88; total 260.88.

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const linkIn = (text: string) => /(http:\/\/127\.0\.0\.1:\d+\/invoice\/[A-Za-z0-9._~-]+_[A-Za-z0-9_-]{43})/.exec(text)?.[1];

describe.runIf(POPPLER).each(engines)('invoice delivery on %s', (engine) => {
  let store: TestStore;
  let server: TestServer;
  let box: Mailbox;
  let orgId: string;
  let token: string;
  let admin: ReturnType<typeof caller>;
  let customerId: string;

  beforeAll(async () => {
    store = await openTestStore(engine);
    box = await startMailbox();
    server = await startTestServer(store.db, { http: { rateLimitPerMinute: 0 }, invoices: { smtpUrl: box.smtpUrl, pollMs: 50 } });
    ({ token } = await newOrganization(store.db, 'Blue Water Pools'));
    admin = caller(server, token);
    orgId = ok(await admin(`{ organization { id } }`)).organization.id;
    ok(await admin(Q.org, { input: { currency: 'USD', timezone: 'America/Phoenix', phone: '+1 602 555 0100', email: 'office@bluewater.example', address: { street: '1 Palm Ave', city: 'Phoenix', state: 'AZ', zipCode: '85001' } } }));
    ok(await admin(Q.settings, { input: { invoicePrefix: 'INV-', autoSendInvoices: false } }));
    customerId = ok(
      await admin(Q.customer, {
        input: {
          firstName: 'Dana',
          lastName: 'Whitfield',
          streetAddress: '77 Cactus Rd',
          city: 'Scottsdale',
          state: 'AZ',
          zipCode: '85251',
          billingFirstName: 'Whitfield',
          billingLastName: 'Holdings LLC',
          billingAddress: 'PO Box 4410',
          billingCity: 'Tempe',
          billingState: 'AZ',
          billingZipCode: '85280',
          email: 'dana@home.example',
          billingEmail: 'ap@whitfield.example',
          billingCCEmail: 'bookkeeper@whitfield.example',
        },
      }),
    ).createCustomer.id;
  });
  afterAll(async () => {
    await server?.close();
    await box?.close();
    await store?.drop();
  });

  const pdfOf = async (invoiceId: string, bearer = token) => {
    const res = await fetch(`${server.url}/invoices/${invoiceId}/pdf`, { headers: { authorization: `Bearer ${bearer}` } });
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const finalized = async (lines = LINES) => ok(await admin(Q.finalize, { id: await draftThroughStorage(store.db, orgId, customerId, lines, { periodStart: '2026-10-01', periodEnd: '2026-10-31' }) })).finalizeInvoice;
  const mailsTo = (number: string) => box.mails.filter((m) => m.subject?.includes(number));

  it("makes the invoice's PDF: number, bill-to, lines by visit date with their chemicals, tax, total, paid and balance", async () => {
    const draftId = await draftThroughStorage(store.db, orgId, customerId, LINES, { periodStart: '2026-10-01', periodEnd: '2026-10-31', notes: 'Thank you for your business!' });
    const draft = await pdfOf(draftId);
    expect(draft).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(await pdfText(draft.bytes)).toContain('DRAFT');

    const invoice = ok(await admin(Q.finalize, { id: draftId })).finalizeInvoice;
    expect(invoice).toMatchObject({ status: 'OPEN', total: 260.88 });
    await applyPaymentThroughStorage(store.db, orgId, invoice.id, 100);

    const pdf = await pdfOf(invoice.id);
    const text = (await pdfText(pdf.bytes)).replace(/[ \t]+/g, ' ');
    for (const expected of [
      'Blue Water Pools',
      '1 Palm Ave, Phoenix, AZ 85001',
      'INVOICE',
      invoice.number,
      'Bill to',
      'Whitfield Holdings LLC',
      'PO Box 4410',
      'Tempe, AZ 85280',
      'Service address',
      '77 Cactus Rd',
      'Visit on October 6, 2026',
      'Visit on October 13, 2026',
      'Other charges',
      'Liquid chlorine (gal)',
      'Muriatic acid (qt)',
      'Included',
      'Filter cartridge cleaning',
      'Period: October 1, 2026 – October 31, 2026',
      'Subtotal',
      '$241.00',
      'Tax (8.25%)',
      '$19.88',
      'Total (USD)',
      '$260.88',
      'Amount paid',
      '$100.00',
      'Balance due',
      '$160.88',
      'Thank you for your business!',
      `Invoice ${invoice.number} · Page 1 of 1`,
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(text).not.toContain('DRAFT');
    // Row by row as on the page: each visit's lines under its date, visits in date order, its
    // chemicals beneath it with their amounts, other charges last.
    const rows = (await pdfLayoutText(pdf.bytes))
      .split('\n')
      .map((row) => row.trim().replace(/\s{2,}/g, ' | '))
      .filter((row) => /Visit on|pool service|chlorine|acid|Other charges|Filter/.test(row));
    expect(rows).toEqual([
      'Visit on October 6, 2026',
      'Weekly pool service | 1 | $95.00 | $95.00',
      'Liquid chlorine (gal) | 2 | $5.50 | $11.00',
      'Visit on October 13, 2026',
      'Weekly pool service | 1 | $95.00 | $95.00',
      'Muriatic acid (qt) | 1 | $0.00 | Included',
      'Other charges',
      'Filter cartridge cleaning | 1 | $40.00 | $40.00',
    ]);

    // pdfUrl: a signed link that opens the same invoice without a token; tampered, it is refused.
    const { pdfUrl } = ok(await admin(Q.invoice, { id: invoice.id })).invoice;
    expect(pdfUrl).toContain(`/invoice-pdfs/${orgId}/${invoice.id}.pdf?expires=`);
    const signed = await fetch(pdfUrl);
    expect(signed.status).toBe(200);
    expect(await pdfText(Buffer.from(await signed.arrayBuffer()))).toContain('$160.88');
    expect((await fetch(pdfUrl.replace(/signature=./, 'signature=x'))).status).toBe(403);

    // Office roles only; another organization's invoice looks missing.
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    expect((await pdfOf(invoice.id, tech.token)).status).toBe(403);
    const other = await newOrganization(store.db, 'Other Pools');
    expect((await pdfOf(invoice.id, other.token)).status).toBe(404);
    expect((await fetch(`${server.url}/invoices/${invoice.id}/pdf`)).status).toBe(401);
  });

  it('sends one email per sendInvoice, to the billing email with the CC copied and the PDF attached; a draft is refused', async () => {
    const draftId = await draftThroughStorage(store.db, orgId, customerId, LINES);
    const refused = await admin(Q.send, { id: draftId });
    expect(errorCodes(refused)).toEqual(['CONFLICT']);
    expect(refused.errors![0]!.message).toMatch(/DRAFT: finalize it before sending/);
    const outbox = ok(await admin(Q.outbox)).outboxMessages.edges.map((e: { node: { invoiceId: string } }) => e.node);
    expect(outbox.filter((m: { invoiceId: string }) => m.invoiceId === draftId)).toEqual([]);

    const invoice = await finalized();
    ok(await admin(Q.send, { id: invoice.id }));
    const [mail] = await until('the invoice email', () => mailsTo(invoice.number).length >= 1 && mailsTo(invoice.number));
    expect(mail!.subject).toBe(`Invoice ${invoice.number} from Blue Water Pools`);
    expect(mail!.to).toMatchObject({ text: 'ap@whitfield.example' });
    expect(mail!.cc).toMatchObject({ text: 'bookkeeper@whitfield.example' });
    expect(mail!.from?.text).toContain('Blue Water Pools');
    expect(mail!.attachments).toHaveLength(1);
    const attachment = mail!.attachments[0]!;
    expect(attachment).toMatchObject({ contentType: 'application/pdf', filename: `${invoice.number}.pdf` });
    const attached = (await pdfText(attachment.content)).replace(/[ \t]+/g, ' ');
    for (const expected of [invoice.number, 'Whitfield Holdings LLC', 'Weekly pool service', '$260.88', 'Balance due']) expect(attached).toContain(expected);
    expect(mail!.text).toContain('Balance due: $260.88');
    await until('sentAt', async () => ok(await admin(Q.invoice, { id: invoice.id })).invoice.sentAt);

    // Sending is explicit: a second call is a second email, and no more arrive.
    ok(await admin(Q.send, { id: invoice.id }));
    await until('the second email', () => mailsTo(invoice.number).length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailsTo(invoice.number)).toHaveLength(2);
    const messages = ok(await admin(Q.outbox)).outboxMessages.edges.map((e: { node: Record<string, string> }) => e.node).filter((m: Record<string, string>) => m.invoiceId === invoice.id);
    expect(messages).toHaveLength(2);
    for (const m of messages) expect(m).toMatchObject({ recipient: 'ap@whitfield.example', cc: 'bookkeeper@whitfield.example', status: 'SENT' });
    expect(messages[0].body).toContain('[invoice link]');

    // The technician may not send; nor may anyone send a missing invoice.
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    expect(errorCodes(await caller(server, tech.token)(Q.send, { id: invoice.id }))).toEqual(['FORBIDDEN']);
    expect(errorCodes(await admin(Q.send, { id: 'no-such-invoice' }))).toEqual(['NOT_FOUND']);
  });

  it("the email's link opens the invoice's page and its PDF, until it is revoked or expires", async () => {
    const invoice = await finalized();
    ok(await admin(Q.send, { id: invoice.id }));
    ok(await admin(Q.send, { id: invoice.id }));
    const [first, second] = await until('two emails', () => mailsTo(invoice.number).length >= 2 && mailsTo(invoice.number));
    const page = linkIn(first!.text ?? '')!;
    const other = linkIn(second!.text ?? '')!;
    expect(page).toBeTruthy();
    expect(other).not.toBe(page); // each email its own link
    expect(first!.html).toContain(page);

    const opened = await fetch(page);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await opened.text();
    for (const expected of [`Invoice ${invoice.number}`, 'Whitfield Holdings LLC', 'Weekly pool service', 'Visit on October 6, 2026', '$260.88']) expect(html).toContain(expected);
    const pdf = await fetch(`${page}/pdf`);
    expect(pdf.status).toBe(200);
    expect(await pdfText(Buffer.from(await pdf.arrayBuffer()))).toContain(invoice.number);

    // A token never issued opens nothing.
    expect((await fetch(`${page.slice(0, -4)}AAAA`)).status).toBe(404);

    // Expired (INVOICE_LINK_DAYS after it was made): gone, page and PDF.
    const token = page.split('/invoice/')[1]!;
    await store.db.query(`update invoice_links set expires_at = now() - interval '1 second' where token_hash = $1`, [tokenHashOf(token)]);
    const expired = await fetch(page);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toContain('This invoice is not available');
    expect((await fetch(`${page}/pdf`)).status).toBe(404);

    // Revoked: the other link, still live, stops working; one was live.
    expect((await fetch(other)).status).toBe(200);
    expect(ok(await admin(Q.revoke, { id: invoice.id })).revokeInvoiceLinks).toBe(1);
    expect((await fetch(other)).status).toBe(404);
    expect((await fetch(`${other}/pdf`)).status).toBe(404);
  });

  it('with autoSendInvoices, finalizing emails each invoice once, however often it is finalized', async () => {
    ok(await admin(Q.settings, { input: { autoSendInvoices: true } }));
    try {
      const ids = [await draftThroughStorage(store.db, orgId, customerId, LINES), await draftThroughStorage(store.db, orgId, customerId, LINES)];
      const numbers = ok(await admin(Q.finalizeMany, { input: { ids } })).finalizeInvoices.map((i: { number: string }) => i.number);
      // Finalizing again answers the same invoices and sends nothing more.
      ok(await admin(Q.finalizeMany, { input: { ids } }));
      ok(await admin(Q.finalize, { id: ids[0] }));
      for (const number of numbers) await until(`the email of ${number}`, () => mailsTo(number).length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const number of numbers) expect(mailsTo(number)).toHaveLength(1);
    } finally {
      ok(await admin(Q.settings, { input: { autoSendInvoices: false } }));
    }
  });
});
