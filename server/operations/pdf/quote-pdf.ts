import PDFDocument from 'pdfkit';
import { BAND, INK, MARGIN, Page, RULE, body, collect, heading, paperOf, small, strong, PDF_IMAGE_TYPES, type Logo } from './pdf-page.js';
import { drawLine, drawText, lineHeight, widthOf, wrapText, type TextStyle } from './pdf-text.js';
import type { QuoteDocument } from './quote-pdf-content.js';

/**
 * A quote as a PDF (pdfkit): the organization's logo, name and contact; the quote's number, date
 * and validity; who it is for; a table of lines whose header is repeated on every page; subtotal,
 * tax and total in the organization's currency; notes and terms; and "Page n of N" on every page.
 *
 * The same document gives the same bytes (the creation date is the quote's, the file id derives
 * from it, compression is deterministic), so two processes generating it at once store the same
 * object.
 */
export { PDF_IMAGE_TYPES, type Logo } from './pdf-page.js';

export function renderQuotePdf(document: QuoteDocument, logo: Logo | null): Promise<Buffer> {
  const { quote, organization } = document;
  const doc = new PDFDocument({
    size: paperOf(organization.timezone),
    margin: MARGIN,
    bufferPages: true,
    autoFirstPage: true,
    info: { Title: `Quote ${quote.number}`, Author: organization.name, CreationDate: new Date(quote.createdAt) },
  });
  const done = collect(doc);
  const page = new Page(doc);
  drawHeader(page, document, logo);
  drawLines(page, document);
  drawTotals(page, document);
  drawParagraphs(page, 'Notes', quote.notes);
  drawParagraphs(page, 'Terms', quote.terms);
  drawFooters(doc, document);
  doc.end();
  return done;
}

const formatted = new WeakMap<QuoteDocument, ReturnType<typeof makeFormatters>>();

/** Money, dates and quantities as the organization writes them (built once per document). */
function formatters(document: QuoteDocument) {
  let made = formatted.get(document);
  if (!made) formatted.set(document, (made = makeFormatters(document)));
  return made;
}

function makeFormatters(document: QuoteDocument) {
  const { currency, timezone } = document.organization;
  const money = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: timezone });
  const quantity = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
  return {
    money: (n: number) => money.format(n),
    date: (iso: string) => date.format(new Date(iso)),
    quantity: (n: number) => quantity.format(n),
  };
}

function drawHeader(page: Page, document: QuoteDocument, logo: Logo | null): void {
  const { doc } = page;
  const { organization, quote, customer } = document;
  const format = formatters(document);
  const rightWidth = 200;
  const rightX = page.left + page.width - rightWidth;
  let left = MARGIN;
  if (logo && PDF_IMAGE_TYPES.includes(logo.contentType)) {
    doc.image(logo.bytes, page.left, left, { fit: [160, 60] });
    left += 68;
  }
  left = drawText(doc, organization.name, page.left, left, page.width - rightWidth - 20, { size: 16, weight: 700, color: INK });
  for (const line of organization.contact) left = drawText(doc, line, page.left, left, page.width - rightWidth - 20, small);

  let right = MARGIN;
  right = drawText(doc, 'QUOTE', rightX, right, rightWidth, { size: 20, weight: 700, color: INK }, 'right');
  right = drawText(doc, quote.number, rightX, right, rightWidth, strong, 'right');
  right = drawText(doc, `Date: ${format.date(quote.createdAt)}`, rightX, right, rightWidth, body, 'right');
  if (quote.validUntil) right = drawText(doc, `Valid until: ${format.date(quote.validUntil)}`, rightX, right, rightWidth, body, 'right');

  page.y = Math.max(left, right) + 18;
  if (customer) {
    page.y = drawText(doc, 'Prepared for', page.left, page.y, page.width, small);
    page.y = drawText(doc, customer.name, page.left, page.y, page.width, strong);
    for (const line of customer.address) page.y = drawText(doc, line, page.left, page.y, page.width, body);
    page.y += 12;
  }
  page.y = drawText(doc, quote.title, page.left, page.y, page.width, { size: 13, weight: 700, color: INK }) + 8;
}

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

const PAD = 5;

function drawTableHeader(page: Page): void {
  const { doc } = page;
  const height = lineHeight(small.size) + 2 * PAD;
  doc.rect(page.left, page.y, page.width, height).fill(BAND);
  for (const column of columns(page)) {
    const line = { text: column.title, width: widthOf(doc, column.title, { ...small, weight: 700 }) };
    drawLine(doc, line, column.x + PAD, page.y + PAD, { ...small, weight: 700 }, column.align, column.width - 2 * PAD);
  }
  page.y += height;
}

function drawLines(page: Page, document: QuoteDocument): void {
  const { doc } = page;
  const format = formatters(document);
  const cols = columns(page);
  page.ensure(60);
  drawTableHeader(page);
  page.onNewPage = () => {
    page.y = drawText(doc, `${document.quote.number} (continued)`, page.left, page.y, page.width, small) + 4;
    drawTableHeader(page);
  };
  for (const line of document.quote.lines) {
    const cells = [line.description, format.quantity(line.quantity), format.money(line.unitPrice), format.money(line.amount)].map((text, i) =>
      wrapText(doc, text, body, cols[i]!.width - 2 * PAD),
    );
    const height = Math.max(...cells.map((c) => c.length)) * lineHeight(body.size) + 2 * PAD;
    page.ensure(height);
    cells.forEach((lines, i) => {
      lines.forEach((text, n) => drawLine(doc, text, cols[i]!.x + PAD, page.y + PAD + n * lineHeight(body.size), body, cols[i]!.align, cols[i]!.width - 2 * PAD));
    });
    page.y += height;
    doc.moveTo(page.left, page.y).lineTo(page.left + page.width, page.y).lineWidth(0.5).strokeColor(RULE).stroke();
  }
  page.onNewPage = null;
}

function drawTotals(page: Page, document: QuoteDocument): void {
  const { doc } = page;
  const { quote } = document;
  const format = formatters(document);
  const rows: [string, string, TextStyle][] = [
    ['Subtotal', format.money(quote.subtotal), body],
    [quote.taxName ? `Tax (${quote.taxName})` : 'Tax', format.money(quote.tax), body],
    [`Total (${document.organization.currency})`, format.money(quote.total), { ...heading, size: 12 }],
  ];
  const labelWidth = 200;
  const valueWidth = 110;
  const x = page.left + page.width - labelWidth - valueWidth;
  page.ensure(rows.length * lineHeight(12) + 20);
  page.y += 8;
  for (const [label, value, style] of rows) {
    drawText(doc, label, x, page.y, labelWidth - PAD, style, 'right');
    page.y = drawText(doc, value, x + labelWidth, page.y, valueWidth - PAD, style, 'right');
  }
  page.y += 14;
}

function drawParagraphs(page: Page, title: string, text: string | null): void {
  if (!text?.trim()) return;
  const { doc } = page;
  page.ensure(lineHeight(heading.size) + lineHeight(body.size) * 2);
  page.y = drawText(doc, title, page.left, page.y, page.width, heading) + 2;
  for (const line of wrapText(doc, text, body, page.width)) {
    page.ensure(lineHeight(body.size));
    drawLine(doc, line, page.left, page.y, body);
    page.y += lineHeight(body.size);
  }
  page.y += 10;
}

/** "Organization · Quote Q-0001 · Page n of N" at the foot of every page, once all pages exist. */
function drawFooters(doc: PDFKit.PDFDocument, document: QuoteDocument): void {
  const { start, count } = doc.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    // Below the bottom margin: without this pdfkit would take the footer for overflow.
    doc.page.margins.bottom = 0;
    const text = `${document.organization.name} · Quote ${document.quote.number} · Page ${i - start + 1} of ${count}`;
    const width = doc.page.width - 2 * MARGIN;
    const line = { text, width: widthOf(doc, text, small) };
    drawLine(doc, line, MARGIN + (width - line.width) / 2, doc.page.height - MARGIN, small);
  }
}
