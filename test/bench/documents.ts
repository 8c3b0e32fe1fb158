import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { createPoolClient } from '../../client-sdk/index.js';
import { contentHashOf, quoteDocumentOf } from '../../server/operations/pdf/quote-pdf-content.js';
import { renderQuotePdf } from '../../server/operations/pdf/quote-pdf.js';
import { openStore } from '../../server/storage/open.js';
import type { Quote } from '../../shared/index.js';
import { caller, ok } from '../support/api.js';
import { startMailbox } from '../support/mailboxes.js';
import { newOrganization, startTestServer } from '../support/server.js';
import { SAMPLE_CUSTOMER, SAMPLE_ORGANIZATION } from './pdf-sample.js';

/**
 * `BENCH_ONLY=docs npm run bench`: what the customer's documents cost. A quote PDF of one page and
 * of 200 lines (the first render of a process also loads and parses the fonts it uses), and their
 * sizes; and the time from a technician's completed visit reaching the server by sync to its email
 * reaching the SMTP server, with the worker polling every 500 ms (BULK_POLL_MS's default) and the
 * settling delay at 0 s and 1 s (production's default is 300 s, which adds itself).
 */
const organization = SAMPLE_ORGANIZATION;
const customer = SAMPLE_CUSTOMER;

function quote(lines: number): Quote {
  const lineItems = Array.from({ length: lines }, (_, i) => ({ id: `l${i}`, description: `Line ${i + 1}: chlorine tablets, 25 lb bucket`, quantity: 1 + (i % 3), unitPrice: 89.5, amount: 89.5 * (1 + (i % 3)) }));
  const subtotal = lineItems.reduce((sum, l) => sum + l.amount, 0);
  return {
    id: `q${lines}`, number: 'Q-0042', title: 'Season supplies', customerId: 'c1', status: 'DRAFT', subtotal, tax: Math.round(subtotal * 8.6) / 100, total: subtotal + Math.round(subtotal * 8.6) / 100,
    taxId: null, validUntil: '2026-12-31T00:00:00.000Z', acceptedAt: null, lineItems, notes: 'Delivered to the pool equipment pad.', terms: 'Payment within 30 days.', photos: [], pdfKey: null, createdById: null,
    createdAt: '2026-11-01T17:00:00.000Z', updatedAt: '2026-11-01T17:00:00.000Z',
  };
}

async function benchPdfs(): Promise<void> {
  console.log('\n## Quote PDFs (pdfkit, Noto fonts from npm)');
  for (const lines of [3, 200]) {
    const document = quoteDocumentOf(quote(lines), organization, customer, null);
    const started = performance.now();
    const first = await renderQuotePdf(document, null);
    const cold = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await renderQuotePdf(document, null);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const hashTimes: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      contentHashOf(quoteDocumentOf(quote(lines), organization, customer, null));
      hashTimes.push(performance.now() - t);
    }
    hashTimes.sort((a, b) => a - b);
    console.log(`${lines} lines: ${(first.length / 1024).toFixed(1)} KB; render ${cold.toFixed(0)} ms first in the process, median ${times[5]!.toFixed(0)} ms after (10 runs); its hash for pdfUrl ${(hashTimes[500]! * 1000).toFixed(0)} µs`);
  }
}

async function benchReportLatency(delaySeconds: number): Promise<void> {
  const db = await openStore({});
  const mailbox = await startMailbox();
  const server = await startTestServer(db, { reports: { delaySeconds, pollMs: 500, smtpUrl: mailbox.smtpUrl }, http: { rateLimitPerMinute: 0 } });
  try {
    const { token } = await newOrganization(db, 'Latency Pools');
    const gql = caller(server, token);
    const tech = ok(await gql(`mutation { createApiToken(input: {name: "Maria Lopez", role: TECHNICIAN}) { token apiToken { userId } } }`)).createApiToken;
    const customerId = ok(await gql(`mutation($t: ID) { createCustomer(input: {firstName: "Ana", lastName: "Lee", email: "ana@customer.example", reportNotification: "EMAIL", service: {technicianId: $t}}) { id } }`, { t: tech.apiToken.userId })).createCustomer.id;
    const phone = await createPoolClient({ baseUrl: server.url, token: tech.token, storage: getRxStorageMemory(), name: `latency-${delaySeconds}`, collections: ['services', 'customers'] });
    phone.sync.start();
    await phone.sync.awaitInSync();
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = mailbox.mails.length;
      await phone.recordVisit({ customerId, startTime: new Date(Date.now() - 1_800_000).toISOString(), endTime: new Date().toISOString(), readings: { freeChlorine: 3, ph: 7.4 }, notes: `visit ${i}` });
      await phone.sync.awaitInSync();
      const synced = performance.now();
      while (mailbox.mails.length === before) await new Promise((r) => setTimeout(r, 5));
      latencies.push(performance.now() - synced);
    }
    await phone.close();
    latencies.sort((a, b) => a - b);
    console.log(`delay ${delaySeconds} s: sync acknowledged -> email at the SMTP server: median ${latencies[2]!.toFixed(0)} ms, max ${latencies[4]!.toFixed(0)} ms (5 visits, PGlite)`);
  } finally {
    await server.close();
    await mailbox.close();
    await db.close();
  }
}

export async function benchDocuments(): Promise<void> {
  await benchPdfs();
  console.log('\n## Visit reports');
  for (const delay of [0, 1]) await benchReportLatency(delay);
}
