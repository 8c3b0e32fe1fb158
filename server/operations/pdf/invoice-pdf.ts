import PDFDocument from 'pdfkit';
import { BAND, INK, MARGIN, MUTED, Page, RULE, body, collect, heading, paperOf, small, strong, PDF_IMAGE_TYPES, type Logo } from './pdf-page.js';
import { drawLine, drawText, lineHeight, widthOf, wrapText, type TextStyle } from './pdf-text.js';
import type { DocumentLine, InvoiceDocument } from './invoice-pdf-content.js';

/**
 * An invoice as a PDF, in the quotes' fonts and layout (pdfkit): the organization's logo, name and
 * contact; INVOICE with its number (DRAFT while it has none), issue and due dates and the period
 * billed; who it is billed to (the billing name and address) and where the work was done; the lines
 * grouped under each visit's date, its chemicals and parts beneath it, then other charges; subtotal,
 * tax, total, the amount paid and the balance due; notes; "Page n of N" on every page.
 */
export function renderInvoicePdf(document: InvoiceDocument, logo: Logo | null): Promise<Buffer> {
  const { invoice, organization } = document;
  const doc = new PDFDocument({
    size: paperOf(organization.timezone),
    margin: MARGIN,
    bufferPages: true,
    autoFirstPage: true,
    // No default font: pdfkit would parse Helvetica's metrics for every document, and every text
    // here is set in a face of fonts.ts, selected before it is drawn.
    font: null as unknown as string,
    info: { Title: `Invoice ${invoice.number ?? 'DRAFT'}`, Author: organization.name, CreationDate: new Date(invoice.createdAt) },
  });
  const done = collect(doc);
  const page = new Page(doc);
  const format = formattersOf(document);
  drawHeader(page, document, format, logo);
  drawLines(page, document, format);
  drawTotals(page, document, format);
  drawNotes(page, invoice.notes);
  drawFooters(doc, document);
  doc.end();
  return done;
}

type Formatters = ReturnType<typeof formattersOf>;

// A calendar date has no time zone: read and written as UTC so it never shifts a day.
const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const quantity = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
/** A currency's formatter, made once (making one costs more than the invoice's every use of it). */
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** Money in the invoice's currency (its own decimals: 2 for USD, 0 for JPY, 3 for KWD), calendar dates as written. */
function formattersOf(document: InvoiceDocument) {
  const { currency } = document.invoice;
  let money = moneyFormats.get(currency);
  if (!money) moneyFormats.set(currency, (money = new Intl.NumberFormat('en-US', { style: 'currency', currency })));
  return {
    money: (n: number) => money.format(n),
    date: (day: string) => date.format(new Date(`${day}T00:00:00Z`)),
    quantity: (n: number) => quantity.format(n),
  };
}

/** What the header calls the document: the number, or DRAFT for a draft (which has none yet). */
export const invoiceLabel = (document: InvoiceDocument) => document.invoice.number ?? 'DRAFT';

function drawHeader(page: Page, document: InvoiceDocument, format: Formatters, logo: Logo | null): void {
  const { doc } = page;
  const { organization, invoice, customer } = document;
  const rightWidth = 210;
  const rightX = page.left + page.width - rightWidth;
  const leftWidth = page.width - rightWidth - 20;
  let left = MARGIN;
  if (logo && PDF_IMAGE_TYPES.includes(logo.contentType)) {
    doc.image(logo.bytes, page.left, left, { fit: [160, 60] });
    left += 68;
  }
  left = drawText(doc, organization.name, page.left, left, leftWidth, { size: 16, weight: 700, color: INK });
  for (const line of organization.contact) left = drawText(doc, line, page.left, left, leftWidth, small);

  let right = MARGIN;
  const title = invoice.status === 'VOID' ? 'VOID INVOICE' : 'INVOICE';
  right = drawText(doc, title, rightX, right, rightWidth, { size: 20, weight: 700, color: INK }, 'right');
  right = drawText(doc, invoiceLabel(document), rightX, right, rightWidth, strong, 'right');
  if (invoice.issueDate) right = drawText(doc, `Issued: ${format.date(invoice.issueDate)}`, rightX, right, rightWidth, body, 'right');
  if (invoice.dueDate) right = drawText(doc, `Due: ${format.date(invoice.dueDate)}`, rightX, right, rightWidth, body, 'right');
  if (invoice.periodStart && invoice.periodEnd) {
    right = drawText(doc, `Period: ${format.date(invoice.periodStart)} – ${format.date(invoice.periodEnd)}`, rightX, right, rightWidth, small, 'right');
  }

  page.y = Math.max(left, right) + 18;
  const columnWidth = customer.serviceAddress ? page.width / 2 - 10 : page.width;
  let billY = drawText(doc, 'Bill to', page.left, page.y, columnWidth, small);
  customer.billTo.forEach((line, i) => (billY = drawText(doc, line, page.left, billY, columnWidth, i === 0 ? strong : body)));
  let serviceY = page.y;
  if (customer.serviceAddress) {
    const x = page.left + page.width / 2 + 10;
    serviceY = drawText(doc, 'Service address', x, serviceY, columnWidth, small);
    for (const line of customer.serviceAddress) serviceY = drawText(doc, line, x, serviceY, columnWidth, body);
  }
  page.y = Math.max(billY, serviceY) + 16;
}

const PAD = 5;

/** Column edges of the line table: description takes what the numbers leave. */
function columns(page: Page) {
  const amount = 90;
  const unit = 90;
  const qty = 60;
  const description = page.width - amount - unit - qty;
  return [
    { title: 'Description', x: page.left, width: description, align: 'left' as const },
    { title: 'Qty', x: page.left + description, width: qty, align: 'right' as const },
    { title: 'Unit price', x: page.left + description + qty, width: unit, align: 'right' as const },
    { title: 'Amount', x: page.left + description + qty + unit, width: amount, align: 'right' as const },
  ];
}

function drawTableHeader(page: Page): void {
  const { doc } = page;
  const style = { ...small, weight: 700 as const };
  const height = lineHeight(small.size) + 2 * PAD;
  doc.rect(page.left, page.y, page.width, height).fill(BAND);
  for (const column of columns(page)) {
    const line = { text: column.title, width: widthOf(doc, column.title, style) };
    drawLine(doc, line, column.x + PAD, page.y + PAD, style, column.align, column.width - 2 * PAD);
  }
  page.y += height;
}

function drawLines(page: Page, document: InvoiceDocument, format: Formatters): void {
  const { doc } = page;
  page.ensure(80);
  drawTableHeader(page);
  page.onNewPage = () => {
    page.y = drawText(doc, `Invoice ${invoiceLabel(document)} (continued)`, page.left, page.y, page.width, small) + 4;
    drawTableHeader(page);
  };
  const titled = document.groups.some((g) => g.visitDate !== null);
  for (const group of document.groups) {
    if (titled) {
      const title = group.visitDate ? `Visit on ${format.date(group.visitDate)}` : 'Other charges';
      // A group's title never ends a page alone: room for it and its first line.
      page.ensure(lineHeight(heading.size) + lineHeight(body.size) + 3 * PAD);
      page.y = drawText(doc, title, page.left + PAD, page.y + PAD, page.width - 2 * PAD, heading);
    }
    for (const line of group.lines) drawRow(page, line, format);
  }
  page.onNewPage = null;
}

/** One row: a material (chemical, part) is indented under its visit; one at no charge says so. */
function drawRow(page: Page, line: DocumentLine, format: Formatters): void {
  const { doc } = page;
  const cols = columns(page);
  const indent = line.material ? 12 : 0;
  const style: TextStyle = line.material ? { ...body, color: MUTED } : body;
  const amount = line.material && line.amount === 0 ? 'Included' : format.money(line.amount);
  const texts = [line.description, format.quantity(line.quantity), format.money(line.unitPrice), amount];
  const cells = texts.map((text, i) => wrapText(doc, text, style, cols[i]!.width - 2 * PAD - (i === 0 ? indent : 0)));
  const height = Math.max(...cells.map((c) => c.length)) * lineHeight(body.size) + 2 * PAD;
  page.ensure(height);
  cells.forEach((lines, i) => {
    const x = cols[i]!.x + PAD + (i === 0 ? indent : 0);
    const width = cols[i]!.width - 2 * PAD - (i === 0 ? indent : 0);
    lines.forEach((text, n) => drawLine(doc, text, x, page.y + PAD + n * lineHeight(body.size), style, cols[i]!.align, width));
  });
  page.y += height;
  doc.moveTo(page.left, page.y).lineTo(page.left + page.width, page.y).lineWidth(0.5).strokeColor(RULE).stroke();
}

function drawTotals(page: Page, document: InvoiceDocument, format: Formatters): void {
  const { doc } = page;
  const { invoice } = document;
  const big: TextStyle = { ...heading, size: 12 };
  const rows: [string, string, TextStyle][] = [
    ['Subtotal', format.money(invoice.subtotal), body],
    [invoice.taxLabel, format.money(invoice.tax), body],
    [`Total (${invoice.currency})`, format.money(invoice.total), big],
    ['Amount paid', format.money(invoice.amountPaid), body],
    ['Balance due', format.money(invoice.balanceDue), big],
  ];
  const labelWidth = 220;
  const valueWidth = 110;
  const x = page.left + page.width - labelWidth - valueWidth;
  page.ensure(rows.length * lineHeight(12) + 24);
  page.y += 8;
  for (const [label, value, style] of rows) {
    drawText(doc, label, x, page.y, labelWidth - PAD, style, 'right');
    page.y = drawText(doc, value, x + labelWidth, page.y, valueWidth - PAD, style, 'right');
  }
  page.y += 14;
}

function drawNotes(page: Page, notes: string | null): void {
  if (!notes?.trim()) return;
  const { doc } = page;
  page.ensure(lineHeight(heading.size) + lineHeight(body.size) * 2);
  page.y = drawText(doc, 'Notes', page.left, page.y, page.width, heading) + 2;
  for (const line of wrapText(doc, notes, body, page.width)) {
    page.ensure(lineHeight(body.size));
    drawLine(doc, line, page.left, page.y, body);
    page.y += lineHeight(body.size);
  }
}

/** "Organization · Invoice INV-0001 · Page n of N" at the foot of every page, once all pages exist. */
function drawFooters(doc: PDFKit.PDFDocument, document: InvoiceDocument): void {
  const { start, count } = doc.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    // Below the bottom margin: without this pdfkit would take the footer for overflow.
    doc.page.margins.bottom = 0;
    const text = `${document.organization.name} · Invoice ${invoiceLabel(document)} · Page ${i - start + 1} of ${count}`;
    const width = doc.page.width - 2 * MARGIN;
    const line = { text, width: widthOf(doc, text, small) };
    drawLine(doc, line, MARGIN + (width - line.width) / 2, doc.page.height - MARGIN, small);
  }
}
