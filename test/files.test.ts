import { request } from 'node:http';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services } from '../server/storage/services.js';
import { fileLinks } from '../server/transports/http/file-links.js';
import { fetchBytes, sampleFiles, uploadFile } from './fixtures/files.js';
import { caller, ok, tokenFor } from './support/api.js';
import { blobKinds, openTestBlobStore, type TestBlobStore } from './support/blob-stores.js';
import { openTestStore, type TestStore } from './support/engines.js';
import { newOrganization, startTestServer, TEST_FILE_SECRET, type TestServer } from './support/server.js';

/**
 * The REST file endpoints on both blob stores (a local folder; S3 through minio against s3rver):
 * everything stored is fetched back byte for byte through the signed URL the API returned.
 */
const MAX_UPLOAD = 256 * 1024;
const CREATE_CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id } }`;
const CREATE_QUOTE = `mutation($input: CreateQuoteInput!) { createQuote(input: $input) { id number } }`;
const QUOTE = `query($id: ID!) { quote(selector: {id: $id}) { id pdfUrl photos { id url caption } } }`;
const SERVICE_PHOTOS = `query($id: ID!) { infiniteServices(selector: {filters: {id: {eq: $id}}}, first: 1) { edges { node { photos { id url caption contentType size takenAt } } } } }`;

describe.each(blobKinds)('files on the %s blob store', (kind) => {
  let store: TestStore;
  let files: TestBlobStore;
  let server: TestServer;
  let token: string;
  let orgId: string;
  let admin: ReturnType<typeof caller>;
  let customerId: string;

  beforeAll(async () => {
    store = await openTestStore('pglite');
    files = await openTestBlobStore(kind);
    server = await startTestServer(store.db, { blobs: files.blobs, maxUploadBytes: MAX_UPLOAD });
    const created = await newOrganization(store.db, 'File Pools');
    token = created.token;
    orgId = created.org.id;
    admin = caller(server, token);
    customerId = ok(await admin(CREATE_CUSTOMER, { input: { firstName: 'Fay', lastName: 'Files' } })).createCustomer.id;
  });
  afterAll(async () => {
    await server?.close();
    await files?.close();
    await store?.drop();
  });

  const newQuote = async (title = 'Resurface') => ok(await admin(CREATE_QUOTE, { input: { customerId, title } })).createQuote;
  const quoteOf = async (id: string) => ok(await admin(QUOTE, { id })).quote;

  it('POST /quotes/:id/photos stores each image type; the photo and the quote both serve the bytes', async () => {
    const quote = await newQuote();
    for (const [type, make] of [['image/jpeg', sampleFiles.jpeg], ['image/png', sampleFiles.png], ['image/webp', sampleFiles.webp], ['image/heic', sampleFiles.heic]] as const) {
      const bytes = make(4000);
      // The declared type and file name are deliberately wrong: only the bytes count.
      const res = await uploadFile(`${server.url}/quotes/${quote.id}/photos`, token, bytes, { caption: `A ${type}` }, { filename: 'x.txt', type: 'text/plain' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: expect.any(String), caption: `A ${type}`, contentType: type, size: 4000 });
      const fetched = await fetchBytes(res.body.url);
      expect(fetched.status).toBe(200);
      expect(fetched.type).toBe(type);
      expect(fetched.bytes.equals(bytes)).toBe(true);
    }
    const listed = (await quoteOf(quote.id)).photos;
    expect(listed).toHaveLength(4);
    for (const photo of listed) expect((await fetchBytes(photo.url)).status).toBe(200);
  });

  it('a retried upload with the same photo id stores one object and one row', async () => {
    const quote = await newQuote();
    const bytes = sampleFiles.jpeg(3000);
    const first = await uploadFile(`${server.url}/quotes/${quote.id}/photos`, token, bytes, { id: 'device-photo-1', caption: 'Crack' });
    const again = await uploadFile(`${server.url}/quotes/${quote.id}/photos`, token, bytes, { id: 'device-photo-1', caption: 'Crack' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe('device-photo-1');
    expect((await quoteOf(quote.id)).photos.map((p: any) => p.id)).toEqual(['device-photo-1']);
    expect(await files.keys(`org/${orgId}/quotes/${quote.id}/`)).toEqual([`org/${orgId}/quotes/${quote.id}/photos/device-photo-1`]);
  });

  it('POST /services/:id/photos fills in a photo whose metadata arrived first (by sync)', async () => {
    await services.insert(store.db, orgId, {
      id: 'visit-1',
      customerId,
      photos: [{ id: 'p-synced', url: null, caption: 'Before', contentType: null, size: null, takenAt: '2026-11-20T10:00:00.000Z' }],
    });
    const before = ok(await admin(SERVICE_PHOTOS, { id: 'visit-1' })).infiniteServices.edges[0].node.photos;
    expect(before).toEqual([{ id: 'p-synced', url: null, caption: 'Before', contentType: null, size: null, takenAt: '2026-11-20T10:00:00.000Z' }]);
    const bytes = sampleFiles.png(5000);
    const res = await uploadFile(`${server.url}/services/visit-1/photos`, token, bytes, { id: 'p-synced' });
    expect(res.status).toBe(201);
    const other = await uploadFile(`${server.url}/services/visit-1/photos`, token, sampleFiles.jpeg(), { caption: 'After' });
    expect(other.status).toBe(201);
    const after = ok(await admin(SERVICE_PHOTOS, { id: 'visit-1' })).infiniteServices.edges[0].node.photos;
    expect(after.map((p: any) => [p.id, p.caption, p.contentType, p.size, p.takenAt])).toEqual([
      ['p-synced', 'Before', 'image/png', 5000, '2026-11-20T10:00:00.000Z'],
      [other.body.id, 'After', 'image/jpeg', 2048, null],
    ]);
    expect((await fetchBytes(after[0].url)).bytes.equals(bytes)).toBe(true);
  });

  it('POST /quotes/:id/pdf attaches a PDF that quote.pdfUrl serves; a new one replaces it', async () => {
    const quote = await newQuote();
    const pdf = sampleFiles.pdf(10_000);
    const res = await uploadFile(`${server.url}/quotes/${quote.id}/pdf`, token, pdf, {}, { filename: 'q.pdf', type: 'application/pdf' });
    expect(res.status).toBe(200);
    expect((await fetchBytes(res.body.pdfUrl)).bytes.equals(pdf)).toBe(true);
    const viaGraphql = await fetchBytes((await quoteOf(quote.id)).pdfUrl);
    expect(viaGraphql).toMatchObject({ status: 200, type: 'application/pdf' });
    expect(viaGraphql.bytes.equals(pdf)).toBe(true);
    const second = sampleFiles.pdf(3000);
    ok(await admin(QUOTE, { id: quote.id }));
    const replaced = await uploadFile(`${server.url}/quotes/${quote.id}/pdf`, token, second);
    expect((await fetchBytes(replaced.body.pdfUrl)).bytes.equals(second)).toBe(true);
    expect(await files.keys(`org/${orgId}/quotes/${quote.id}/pdf`)).toHaveLength(1);
    const notPdf = await uploadFile(`${server.url}/quotes/${quote.id}/pdf`, token, sampleFiles.png(), {}, { filename: 'q.pdf', type: 'application/pdf' });
    expect(notPdf).toMatchObject({ status: 415, body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } } });
  });

  it('POST /organization/logo sets organization.logo; a technician is FORBIDDEN and stores nothing', async () => {
    const logo = sampleFiles.webp(6000);
    const res = await uploadFile(`${server.url}/organization/logo`, token, logo);
    expect(res.status).toBe(200);
    expect((await fetchBytes(res.body.logo)).bytes.equals(logo)).toBe(true);
    const org = ok(await admin(`{ organization { logo } }`)).organization;
    expect((await fetchBytes(org.logo)).bytes.equals(logo)).toBe(true);
    const tech = await tokenFor(server, token, 'TECHNICIAN');
    const keysBefore = await files.keys();
    const refused = await uploadFile(`${server.url}/organization/logo`, tech.token, sampleFiles.png());
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    expect(await files.keys()).toEqual(keysBefore);
  });

  it('refuses wrong types, oversize files, missing files, unknown or foreign ids and missing tokens, storing nothing', async () => {
    const quote = await newQuote();
    const rival = await newOrganization(store.db, 'Rival Files');
    const url = `${server.url}/quotes/${quote.id}/photos`;
    const keysBefore = await files.keys();
    const cases: [Promise<{ status: number; body: any }>, number, string][] = [
      [uploadFile(url, token, sampleFiles.text()), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [uploadFile(url, token, sampleFiles.exe(), {}, { filename: 'cat.jpg', type: 'image/jpeg' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [uploadFile(url, token, sampleFiles.pdf()), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [uploadFile(url, token, sampleFiles.jpeg(MAX_UPLOAD + 1)), 413, 'PAYLOAD_TOO_LARGE'],
      [uploadFile(url, token, Buffer.alloc(0), { caption: 'no file' }), 400, 'BAD_USER_INPUT'],
      [uploadFile(url, token, sampleFiles.jpeg(), {}, { fileField: 'photo' }), 400, 'BAD_USER_INPUT'],
      [uploadFile(url, token, sampleFiles.jpeg(), { id: '../../etc/passwd' }), 400, 'BAD_USER_INPUT'],
      [uploadFile(`${server.url}/quotes/no-such-quote/photos`, token, sampleFiles.jpeg()), 404, 'NOT_FOUND'],
      [uploadFile(url, rival.token, sampleFiles.jpeg()), 404, 'NOT_FOUND'],
      [uploadFile(`${server.url}/services/visit-none/photos`, token, sampleFiles.jpeg()), 404, 'NOT_FOUND'],
      [uploadFile(url, null, sampleFiles.jpeg()), 401, 'UNAUTHENTICATED'],
      [uploadFile(url, 'pst_not-a-token', sampleFiles.jpeg()), 401, 'UNAUTHENTICATED'],
    ];
    for (const [response, status, code] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
    }
    expect(await files.keys()).toEqual(keysBefore);
    expect((await quoteOf(quote.id)).photos).toEqual([]);
  });

  it('an upload interrupted mid-body leaves no row and no orphan object', async () => {
    const quote = await newQuote();
    const keysBefore = await files.keys();
    const boundary = 'interrupted-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/quotes/${quote.id}/photos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 200_000 },
      });
      req.on('error', () => resolve());
      req.write(head);
      req.write(sampleFiles.jpeg(50_000));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(await files.keys()).toEqual(keysBefore);
    expect((await quoteOf(quote.id)).photos).toEqual([]);
  });

  it('a tampered or expired link answers 403', async () => {
    const quote = await newQuote();
    const res = await uploadFile(`${server.url}/quotes/${quote.id}/photos`, token, sampleFiles.jpeg());
    const url = new URL(res.body.url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetchBytes(tampered.toString())).status).toBe(403);
    const otherKey = new URL(url);
    otherKey.pathname = url.pathname.replace(quote.id, 'another-quote');
    expect((await fetchBytes(otherKey.toString())).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = '';
    expect((await fetchBytes(unsigned.toString())).status).toBe(403);
    const key = decodeURIComponent(url.pathname.replace(/^\/files\//, ''));
    const expired = fileLinks(TEST_FILE_SECRET, -5).urlFor(key, server.url);
    const body = await fetch(expired);
    expect(body.status).toBe(403);
    expect(await body.json()).toEqual({ error: { code: 'FORBIDDEN', message: 'This file link is invalid or has expired' } });
    expect((await fetchBytes(url.toString())).status).toBe(200);
  });

  it('GET /quotes/export/csv parses back into exactly the rows the GraphQL list returns', async () => {
    const { token: exportToken } = await newOrganization(store.db, 'Export Pools');
    const api = caller(server, exportToken);
    const cust = ok(await api(CREATE_CUSTOMER, { input: { firstName: 'Ed', lastName: 'Export, "Jr"' } })).createCustomer.id;
    const titles = ['Plain title', 'Comma, inside', 'Quote "inside"', 'Line\nbreak', '=HYPERLINK("http://evil")', '+1 pump', '-discount', '@sum'];
    for (const title of titles) {
      const q = ok(await api(CREATE_QUOTE, { input: { customerId: cust, title, lineItems: [{ description: 'x', quantity: 1, unitPrice: 10.5 }] } })).createQuote;
      if (title === 'Plain title') {
        ok(await api(`mutation($id: ID!) { updateQuote(id: $id, input: {status: SENT}) { id } }`, { id: q.id }));
        ok(await api(`mutation($id: ID!) { updateQuote(id: $id, input: {status: ACCEPTED}) { id } }`, { id: q.id }));
      }
    }
    const today = new Date().toISOString().slice(0, 10);
    const res = await fetch(`${server.url}/quotes/export/csv?startDate=${today}`, { headers: { authorization: `Bearer ${exportToken}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
    const listed = ok(await api(`{ infiniteQuotes(first: 100) { edges { node { number title status subtotal tax total validUntil acceptedAt createdAt customer { firstName lastName } } } } }`))
      .infiniteQuotes.edges.map((e: any) => e.node)
      .reverse();
    const guard = (text: string) => (/^[=+\-@]/.test(text) ? `'${text}` : text);
    expect(rows).toEqual(
      listed.map((q: any) => ({
        number: q.number,
        title: guard(q.title),
        'customer name': `${q.customer.firstName} ${q.customer.lastName}`,
        status: q.status,
        subtotal: String(q.subtotal),
        tax: String(q.tax),
        total: String(q.total),
        validUntil: q.validUntil ?? '',
        acceptedAt: q.acceptedAt ?? '',
        createdAt: q.createdAt,
      })),
    );
    expect(rows.find((r) => r.title?.startsWith("'=HYPERLINK"))).toBeTruthy();
    expect(rows.some((r) => r.acceptedAt !== '')).toBe(true);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const none = await fetch(`${server.url}/quotes/export/csv?startDate=${tomorrow}`, { headers: { authorization: `Bearer ${exportToken}` } });
    expect((await none.text()).trim()).toBe('number,title,customer name,status,subtotal,tax,total,validUntil,acceptedAt,createdAt');
    const bad = await fetch(`${server.url}/quotes/export/csv?startDate=yesterday`, { headers: { authorization: `Bearer ${exportToken}` } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe('BAD_USER_INPUT');
  });
});
