import { invoiceDocumentOf } from '../../server/operations/pdf/invoice-pdf-content.js';
import { renderInvoicePdf } from '../../server/operations/pdf/invoice-pdf.js';
import { InvoicePdfPool } from '../../server/operations/pdf/invoice-pdf-pool.js';
import type { Customer, Invoice, InvoiceLine } from '../../shared/index.js';
import { SAMPLE_CUSTOMER, SAMPLE_ORGANIZATION } from './pdf-sample.js';

/**
 * `BENCH_ONLY=invoice-pdf npm run bench`: what an invoice's PDF costs, made when its email is sent
 * (and on each download). A month of a weekly customer (4 visits, each with its service line and
 * two chemicals, and a flat charge: 13 lines) and a large one (31 daily visits: 94 lines, several
 * pages), from the document to the bytes: the first in the process (which also loads the fonts),
 * then the median and 95th percentile of 100, and what that makes of a month's 13,000 invoices on
 * one core.
 */
const organization = SAMPLE_ORGANIZATION;
const customer = {
  ...SAMPLE_CUSTOMER,
  id: 'c1',
  billingAddress: 'PO Box 12', billingCity: 'Tempe', billingState: 'AZ', billingZipCode: '85280', useAddressForBilling: false,
} as unknown as Customer;

function linesOf(visits: number): InvoiceLine[] {
  const lines: InvoiceLine[] = [];
  const line = (part: Partial<InvoiceLine>) => lines.push({ id: `l${lines.length}`, position: lines.length + 1, taxId: null, taxRate: 8.25, taxAmount: null, itemId: null, released: false, quantity: 1, ...part } as InvoiceLine);
  for (let v = 0; v < visits; v++) {
    const date = `2026-10-${String(1 + (v % 31)).padStart(2, '0')}`;
    const serviceId = `s${v}`;
    line({ sourceType: 'VISIT', sourceId: serviceId, serviceId, date, description: 'Weekly pool service', unitPrice: 95, amount: 95 });
    line({ sourceType: 'STOCK_MOVEMENT', sourceId: `m${v}a`, serviceId, date, description: 'Liquid chlorine (gal)', quantity: 2, unitPrice: 5.5, amount: 11 });
    line({ sourceType: 'STOCK_MOVEMENT', sourceId: `m${v}b`, serviceId, date, description: 'Muriatic acid (qt)', unitPrice: 0, amount: 0 });
  }
  line({ sourceType: 'MANUAL', sourceId: null, serviceId: null, date: null, description: 'Filter cartridge cleaning', unitPrice: 40, amount: 40 });
  return lines;
}

function invoiceOf(lines: InvoiceLine[]): Invoice {
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  const tax = Math.round(subtotal * 8.25) / 100;
  return {
    id: 'i1', number: 'INV-0042', customerId: 'c1', status: 'OPEN', origin: 'GENERATED', periodStart: '2026-10-01', periodEnd: '2026-10-31', currency: 'USD',
    subtotal, tax, total: subtotal + tax, amountPaid: 50, balanceDue: subtotal + tax - 50, taxRounding: 'PER_INVOICE', issueDate: '2026-11-01', dueDate: '2026-12-01',
    notes: 'Thank you for your business.', accountingId: null, quoteId: null, replacesInvoiceId: null, finalizedAt: null, sentAt: null, voidedAt: null, voidReason: null,
    createdById: null, createdAt: '2026-11-01T17:00:00.000Z', updatedAt: '2026-11-01T17:00:00.000Z',
  } as Invoice;
}

export async function benchInvoicePdf(): Promise<void> {
  console.log('\n## Invoice PDFs (pdfkit, the quotes\' Noto fonts)');
  for (const visits of [4, 31]) {
    const lines = linesOf(visits);
    const make = () => renderInvoicePdf(invoiceDocumentOf(invoiceOf(lines), lines, organization, customer, new Map()), null);
    const started = performance.now();
    const first = await make();
    const cold = performance.now() - started;
    const times: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      await make();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const median = times[50]!;
    const minutes = (13_000 * median) / 60_000;
    console.log(
      `${visits} visits, ${lines.length} lines: ${(first.length / 1024).toFixed(1)} KB; ${cold.toFixed(0)} ms first in the process, ` +
        `median ${median.toFixed(1)} ms, p95 ${times[95]!.toFixed(1)} ms (100 runs); 13,000 of them: ${minutes.toFixed(1)} min of one core`,
    );
  }
  await benchPdfThread();
}

/**
 * The same one-page invoice as the invoice-email worker makes it: on one PDF thread (the pool the
 * worker uses), 200 asked 4 at a time as the worker has them in flight. The first is the thread's
 * start and its fonts; then the throughput, and the process's CPU per PDF (Node 20 counts every
 * thread's together): the render, and the structured clone of each document and answer.
 */
async function benchPdfThread(): Promise<void> {
  const lines = linesOf(4);
  const document = invoiceDocumentOf(invoiceOf(lines), lines, organization, customer, new Map());
  const pool = new InvoicePdfPool(1);
  try {
    let started = performance.now();
    await pool.render(document, null);
    const cold = performance.now() - started;
    const count = 200;
    const queue = Array.from({ length: count }, (_, i) => i);
    const cpu = process.cpuUsage();
    started = performance.now();
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (queue.shift() !== undefined) await pool.render(document, null);
    }));
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    console.log(
      `On a PDF thread (4 visits): ${cold.toFixed(0)} ms for the first (the thread started, its fonts read), then ${(wall / count).toFixed(1)} ms a PDF ` +
        `(${count} asked 4 at a time; 13,000: ${((13_000 * wall) / count / 60_000).toFixed(1)} min), ${((used.user + used.system) / 1000 / count).toFixed(2)} ms of the process's CPU each (both threads)`,
    );
  } finally {
    await pool.close();
  }
}
