import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBytes, sampleFiles, uploadFile } from './fixtures/files.js';
import { caller, ok, tokenFor } from './support/api.js';
import { blobKinds, openTestBlobStore, type TestBlobStore } from './support/blob-stores.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';
import { POPPLER, pdfImageCount, pdfPagePng, pdfPages, pdfText } from './support/poppler.js';
import { newOrganization, startTestServer, type TestServer } from './support/server.js';

/**
 * Every quote's pdfUrl serves a PDF generated from the quote on first fetch, stored by content and
 * served from storage after; a custom PDF takes its place while there is one. Read back with
 * poppler as a person's viewer would: the number, every line and the total are in the text.
 */
const CREATE_CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const CREATE_TAX = `mutation($input: CreateTaxInput!) { createTax(input: $input) { id } }`;
const CREATE_QUOTE = `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id number total pdfUrl } }`;
const UPDATE_QUOTE = `mutation($id: ID!, $input: UpdateQuoteInput!) { updateQuote(id: $id, input: $input) { id pdfUrl } }`;
const QUOTE = `query($id: ID!) { quote(selector: {id: $id}) { id number pdfUrl } }`;
const QUOTES = `query { infiniteQuotes(first: 100) { edges { node { id pdfUrl } } } }`;

const SHOTS = 'test-output/screenshots';

const lines = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ description: `Line ${i + 1}: chlorine tablets, bucket ${i + 1}`, quantity: 1 + (i % 4), unitPrice: 19.95 }));

/**
 * Each blob store with an engine: PGlite with the local folder and PostgreSQL (when
 * TEST_DATABASE_URL is set) with S3, so both engines and both stores run without doubling the run.
 */
const SETUPS = blobKinds.map((kind, i) => [engines[i % engines.length]!, kind] as const);

describe.runIf(POPPLER).each(SETUPS)('generated quote PDFs on %s with the %s blob store', (engine, kind) => {
  let store: TestStore;
  let files: TestBlobStore;
  let server: TestServer;
  let token: string;
  let orgId: string;
  let admin: ReturnType<typeof caller>;
  let customerId: string;

  beforeAll(async () => {
    store = await openTestStore(engine);
    files = await openTestBlobStore(kind);
    server = await startTestServer(store.db, { blobs: files.blobs, http: { rateLimitPerMinute: 0 } });
    const created = await newOrganization(store.db, 'Piscinas Muñoz 🏊');
    ({ token } = created);
    orgId = created.org.id;
    admin = caller(server, token);
    ok(await admin(`mutation { updateOrganization(input: {currency: "EUR", timezone: "Europe/Madrid", phone: "+34 600 000 000", email: "hola@piscinas.example", address: {street: "Calle Mayor 1", city: "Madrid", zipCode: "28001"}}) { id } }`));
    customerId = ok(await admin(CREATE_CUSTOMER, { input: { firstName: 'José', lastName: 'Müller 王小明 김민준', streetAddress: 'Plaza Ñandú 3', city: 'Sevilla' } })).createCustomer.id;
  });
  afterAll(async () => {
    await server?.close();
    await files?.close();
    await store?.drop();
  });

  const newQuote = async (input: Record<string, unknown>) => ok(await admin(CREATE_QUOTE, { input: { customerId, title: 'Resurface', ...input } })).createQuote;
  const generatedKeys = async (quoteId: string) => (await files.keys(`org/${orgId}/quotes/${quoteId}/`)).filter((k) => k.includes('/generated-'));

  it('renders names beyond ASCII, an emoji in the notes and another currency; the text has the number, every line and the total', async () => {
    const tax = ok(await admin(CREATE_TAX, { input: { name: 'IVA', rate: 21 } })).createTax.id;
    const quote = await newQuote({
      title: 'Rénovation du bassin 泳池翻新',
      taxId: tax,
      lineItems: [
        { description: 'Bomba de calor — instalación', quantity: 1, unitPrice: 2450 },
        { description: 'ポンプの点検 (pump check)', quantity: 2, unitPrice: 80.5 },
        { description: '필터 교체 filter', quantity: 1, unitPrice: 120 },
      ],
      notes: 'Gracias, José! 👍🏽 The pool will sparkle ✨',
      terms: 'Pago a 30 días.',
      validUntil: '2027-01-31T12:00:00.000Z',
    });
    expect(quote.pdfUrl).toContain('/quote-pdfs/');
    const pdf = await fetchBytes(quote.pdfUrl);
    expect(pdf).toMatchObject({ status: 200, type: 'application/pdf' });
    const text = await pdfText(pdf.bytes);
    for (const expected of [quote.number, 'Piscinas Muñoz', 'José Müller 王小明 김민준', 'Plaza Ñandú 3', 'Rénovation du bassin 泳池翻新', 'Bomba de calor — instalación', 'ポンプの点検 (pump check)', '필터 교체 filter', 'Tax (IVA)', '€573.51', '€3,304.51', 'Gracias, José!', 'Pago a 30 días.']) {
      expect(text).toContain(expected);
    }
    expect(quote.total).toBe(3304.51); // 2,450 + 161 + 120, and 21 % of it
    // The organization's contact, the quote's date and validity in the organization's time zone.
    const today = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'Europe/Madrid' }).format(new Date());
    for (const expected of ['+34 600 000 000', 'hola@piscinas.example', 'Calle Mayor 1', `Date: ${today}`, 'Valid until: January 31, 2027', 'Subtotal', '€2,731.00']) {
      expect(text).toContain(expected);
    }
    // The emoji are drawn (from the monochrome emoji font) and read back as themselves.
    expect(text).toContain('👍');
    mkdirSync(SHOTS, { recursive: true });
    const png = await pdfPagePng(pdf.bytes, 1, 60);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    writeFileSync(`${SHOTS}/quote-pdf-${engine}-${kind}.png`, png);
  });

  it('a 200-line quote runs to several pages, each headed again and numbered, with every line and the total', async () => {
    const quote = await newQuote({ title: 'Season supplies', lineItems: lines(200) });
    const pdf = (await fetchBytes(quote.pdfUrl)).bytes;
    const pages = await pdfPages(pdf);
    expect(pages).toBeGreaterThan(3);
    const text = await pdfText(pdf);
    for (let i = 1; i <= 200; i++) expect(text).toContain(`Line ${i}: chlorine tablets, bucket ${i}`);
    expect(text).toContain(`Page 1 of ${pages}`);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    // The table's header again at the top of the second page.
    const second = text.split('\f')[1]!;
    expect(second).toContain(`${quote.number} (continued)`);
    expect(second).toContain('Unit price');
    expect(text).toContain(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(quote.total));
  });

  it('is generated once: fetched again it comes from storage, byte for byte; a change that shows makes a new one and removes the old', async () => {
    const quote = await newQuote({ lineItems: lines(3) });
    const first = await fetchBytes(quote.pdfUrl);
    expect(await generatedKeys(quote.id)).toHaveLength(1);
    // Removed from storage, the same link generates the same bytes again (nothing varies by time).
    await files.blobs.delete((await generatedKeys(quote.id))[0]!);
    const again = await fetchBytes(ok(await admin(QUOTE, { id: quote.id })).quote.pdfUrl);
    expect(again.bytes.equals(first.bytes)).toBe(true);

    // A status change shows nowhere in the PDF: the same PDF.
    const sent = ok(await admin(UPDATE_QUOTE, { id: quote.id, input: { status: 'SENT' } })).updateQuote;
    expect(new URL(sent.pdfUrl).pathname).toBe(new URL(quote.pdfUrl).pathname);

    const draft = await newQuote({ lineItems: lines(2) });
    const before = ok(await admin(QUOTE, { id: draft.id })).quote.pdfUrl;
    await fetchBytes(before);
    const changed = ok(await admin(UPDATE_QUOTE, { id: draft.id, input: { title: 'Resurface and retile' } })).updateQuote.pdfUrl;
    expect(new URL(changed).pathname).not.toBe(new URL(before).pathname);
    expect(await pdfText((await fetchBytes(changed)).bytes)).toContain('Resurface and retile');
    expect(await generatedKeys(draft.id)).toHaveLength(1);
    // The old link names a PDF of a quote that no longer looks like that.
    const stale = await fetch(before);
    expect(stale.status).toBe(404);
    expect(await stale.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('two servers asked at once for a new PDF both answer it, with the same bytes, and one object is stored', async () => {
    const other = await startTestServer(store.db, { blobs: files.blobs });
    try {
      const quote = await newQuote({ lineItems: lines(40) });
      const path = new URL(quote.pdfUrl);
      const [a, b, c] = await Promise.all([fetchBytes(quote.pdfUrl), fetchBytes(`${other.url}${path.pathname}${path.search}`), fetchBytes(quote.pdfUrl)]);
      expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
      expect(a.bytes.equals(b.bytes) && a.bytes.equals(c.bytes)).toBe(true);
      expect(await generatedKeys(quote.id)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('a custom PDF takes precedence while it is there; deleting it returns to the generated one', async () => {
    const quote = await newQuote({ lineItems: lines(1) });
    const custom = sampleFiles.pdf(5000);
    const uploaded = await uploadFile(`${server.url}/quotes/${quote.id}/pdf`, token, custom, {}, { filename: 'q.pdf', type: 'application/pdf' });
    expect(uploaded.body.pdfUrl).toContain('/files/');
    expect((await fetchBytes(ok(await admin(QUOTE, { id: quote.id })).quote.pdfUrl)).bytes.equals(custom)).toBe(true);

    const tech = await tokenFor(server, token, 'TECHNICIAN');
    const refused = await fetch(`${server.url}/quotes/${quote.id}/pdf`, { method: 'DELETE', headers: { authorization: `Bearer ${tech.token}` } });
    expect(refused.status).toBe(403);

    const removed = await fetch(`${server.url}/quotes/${quote.id}/pdf`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(removed.status).toBe(200);
    const { pdfUrl } = (await removed.json()) as { pdfUrl: string };
    expect(pdfUrl).toContain('/quote-pdfs/');
    expect(new URL(ok(await admin(QUOTE, { id: quote.id })).quote.pdfUrl).pathname).toBe(new URL(pdfUrl).pathname);
    expect(await pdfText((await fetchBytes(pdfUrl)).bytes)).toContain(quote.number);
    expect(await files.keys(`org/${orgId}/quotes/${quote.id}/pdf-`)).toEqual([]);
  });

  it('renders without a logo, with a PNG logo, and with a logo whose object is gone', async () => {
    const quote = await newQuote({ lineItems: lines(1) });
    const plain = (await fetchBytes(quote.pdfUrl)).bytes;
    expect(await pdfText(plain)).toContain(quote.number);
    expect(await pdfImageCount(plain)).toBe(0);
    const logo = await uploadFile(`${server.url}/organization/logo`, token, sampleFiles.png());
    expect(logo.status).toBe(200);
    // The logo shows in the PDF, so the quote's PDF is another one now.
    const withLogo = ok(await admin(QUOTE, { id: quote.id })).quote.pdfUrl;
    expect(new URL(withLogo).pathname).not.toBe(new URL(quote.pdfUrl).pathname);
    const logoPdf = (await fetchBytes(withLogo)).bytes;
    expect(await pdfText(logoPdf)).toContain(quote.number);
    expect(await pdfImageCount(logoPdf)).toBe(1);
    const logoKey = (await files.keys(`org/${orgId}/logo-`)).find((k) => !k.endsWith('.meta.json'))!;
    await files.blobs.delete(logoKey);
    await files.blobs.delete((await generatedKeys(quote.id))[0]!);
    const pdf = await fetchBytes(withLogo);
    expect(pdf.status).toBe(200);
    expect(await pdfText(pdf.bytes)).toContain(quote.number);
    expect(await pdfImageCount(pdf.bytes)).toBe(0);
  });

  it('a list of quotes hashes each PDF without generating any; a tampered link is refused', async () => {
    const before = (await files.keys(`org/${orgId}/`)).filter((k) => k.includes('/generated-')).length;
    const listed = ok(await admin(QUOTES)).infiniteQuotes.edges;
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.every((e: { node: { pdfUrl: string } }) => e.node.pdfUrl)).toBe(true);
    expect((await files.keys(`org/${orgId}/`)).filter((k) => k.includes('/generated-')).length).toBe(before);
    const url = new URL(listed[0].node.pdfUrl);
    url.searchParams.set('signature', 'x'.repeat(43));
    const tampered = await fetch(url);
    expect(tampered.status).toBe(403);
  });
});
