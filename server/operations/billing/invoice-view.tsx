import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { InvoiceDocument } from '../pdf/invoice-pdf-content.js';

/**
 * An invoice as HTML: the email that carries it (a summary, the link, the PDF attached) and the page
 * its link opens (the whole invoice, as its PDF shows it, with the PDF to download). Rendered by
 * React on the server, so every name and description is written as text, never markup; styles are
 * inline and the layout is tables, which email clients render alike.
 */
export interface InvoiceLinks {
  /** The invoice's page. */
  page: string;
  /** Its PDF. */
  pdf: string;
  /** The organization's logo, or null when it has none. */
  logo: string | null;
}

const INK = '#1f2933';
const MUTED = '#52606d';
const LINE = '#e4e7eb';
const FONT = "-apple-system, 'Segoe UI', Roboto, 'Noto Sans', Helvetica, Arial, sans-serif";

type Formatters = { money: (n: number) => string; date: (day: string) => string; quantity: (n: number) => string };

// Made once per currency and kept: an Intl formatter takes a while to make (a finalizing batch
// renders hundreds of emails), and formats the same every time.
const FORMATTERS = new Map<string, Formatters>();
const DATE = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const QUANTITY = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

function formatters(document: InvoiceDocument): Formatters {
  const currency = document.invoice.currency;
  let format = FORMATTERS.get(currency);
  if (!format) {
    const money = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    format = {
      money: (n: number) => money.format(n),
      date: (day: string) => DATE.format(new Date(`${day}T00:00:00Z`)),
      quantity: (n: number) => QUANTITY.format(n),
    };
    FORMATTERS.set(currency, format);
  }
  return format;
}

export const invoiceName = (document: InvoiceDocument) => `Invoice ${document.invoice.number ?? 'DRAFT'}`;

/** The email's subject: "Invoice INV-0042 from Blue Water Pools". */
export const invoiceSubject = (document: InvoiceDocument) => `${invoiceName(document)} from ${document.organization.name}`;

function Frame({ document, links, children }: { document: InvoiceDocument; links: InvoiceLinks; children: ReactNode }) {
  return (
    <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ background: '#f5f7fa', fontFamily: FONT, color: INK }}>
      <tbody>
        <tr>
          <td align="center" style={{ padding: '24px 12px' }}>
            <table role="presentation" width="640" cellPadding={0} cellSpacing={0} style={{ maxWidth: '640px', width: '100%', background: '#ffffff', borderRadius: '6px' }}>
              <tbody>
                <tr>
                  <td style={{ padding: '24px 28px 0' }}>
                    {links.logo ? <img src={links.logo} alt={document.organization.name} style={{ maxHeight: '60px', maxWidth: '200px', display: 'block', marginBottom: '8px' }} /> : null}
                    <div style={{ fontSize: '18px', fontWeight: 700 }}>{document.organization.name}</div>
                    {document.organization.contact.map((line) => (
                      <div key={line} style={{ fontSize: '13px', color: MUTED }}>
                        {line}
                      </div>
                    ))}
                  </td>
                </tr>
                {children}
                <tr>
                  <td style={{ padding: '20px 28px 24px', fontSize: '12px', color: MUTED }}>{invoiceName(document)}</td>
                </tr>
              </tbody>
            </table>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

function Row({ children }: { children: ReactNode }) {
  return (
    <tr>
      <td style={{ padding: '16px 28px 0' }}>{children}</td>
    </tr>
  );
}

function Summary({ document }: { document: InvoiceDocument }) {
  const format = formatters(document);
  const { invoice } = document;
  const facts: [string, string][] = [
    ['Invoice', invoice.number ?? 'DRAFT'],
    ...(invoice.issueDate ? [['Issued', format.date(invoice.issueDate)] as [string, string]] : []),
    ...(invoice.dueDate ? [['Due', format.date(invoice.dueDate)] as [string, string]] : []),
    ...(invoice.periodStart && invoice.periodEnd ? [['Period', `${format.date(invoice.periodStart)} – ${format.date(invoice.periodEnd)}`] as [string, string]] : []),
    ['Total', format.money(invoice.total)],
    ['Amount paid', format.money(invoice.amountPaid)],
    ['Balance due', format.money(invoice.balanceDue)],
  ];
  return (
    <table role="presentation" cellPadding={0} cellSpacing={0} style={{ fontSize: '14px', lineHeight: '22px' }}>
      <tbody>
        {facts.map(([label, value]) => (
          <tr key={label}>
            <td style={{ color: MUTED, paddingRight: '16px' }}>{label}</td>
            <td style={{ fontWeight: label === 'Balance due' ? 700 : 400 }} data-fact={label}>
              {value}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Lines({ document }: { document: InvoiceDocument }) {
  const format = formatters(document);
  const titled = document.groups.some((g) => g.visitDate !== null);
  const cell = { padding: '6px 4px', borderBottom: `1px solid ${LINE}`, fontSize: '13px' };
  const right = { ...cell, textAlign: 'right' as const, whiteSpace: 'nowrap' as const };
  return (
    <table role="presentation" width="100%" cellPadding={0} cellSpacing={0}>
      <thead>
        <tr style={{ background: '#eef2f6', fontSize: '12px' }}>
          <th style={{ ...cell, textAlign: 'left' }}>Description</th>
          <th style={right}>Qty</th>
          <th style={right}>Unit price</th>
          <th style={right}>Amount</th>
        </tr>
      </thead>
      <tbody>
        {document.groups.flatMap((group, g) => [
          ...(titled
            ? [
                <tr key={`g${g}`}>
                  <td colSpan={4} style={{ ...cell, fontWeight: 700, paddingTop: '12px' }}>
                    {group.visitDate ? `Visit on ${format.date(group.visitDate)}` : 'Other charges'}
                  </td>
                </tr>,
              ]
            : []),
          ...group.lines.map((line, i) => (
            <tr key={`g${g}l${i}`} style={{ color: line.material ? MUTED : INK }}>
              <td style={{ ...cell, paddingLeft: line.material ? '16px' : '4px' }}>{line.description}</td>
              <td style={right}>{format.quantity(line.quantity)}</td>
              <td style={right}>{format.money(line.unitPrice)}</td>
              <td style={right}>{line.material && line.amount === 0 ? 'Included' : format.money(line.amount)}</td>
            </tr>
          )),
        ])}
        {(
          [
            ['Subtotal', document.invoice.subtotal],
            [document.invoice.taxLabel, document.invoice.tax],
            [`Total (${document.invoice.currency})`, document.invoice.total],
            ['Amount paid', document.invoice.amountPaid],
            ['Balance due', document.invoice.balanceDue],
          ] as [string, number][]
        ).map(([label, value]) => (
          <tr key={label}>
            <td colSpan={3} style={{ ...right, borderBottom: 'none', fontWeight: label.startsWith('Total') || label === 'Balance due' ? 700 : 400 }}>
              {label}
            </td>
            <td style={{ ...right, borderBottom: 'none', fontWeight: label.startsWith('Total') || label === 'Balance due' ? 700 : 400 }}>{format.money(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Button({ href, children }: { href: string; children: ReactNode }) {
  return (
    <a href={href} style={{ display: 'inline-block', padding: '10px 16px', background: '#0b5cad', color: '#ffffff', textDecoration: 'none', borderRadius: '4px', fontSize: '14px' }}>
      {children}
    </a>
  );
}

/** The email: who it is for, the summary, the link; the PDF goes as an attachment. */
export function invoiceEmailHtml(document: InvoiceDocument, links: InvoiceLinks): string {
  const body = renderToStaticMarkup(
    <Frame document={document} links={links}>
      <Row>
        <p style={{ fontSize: '14px', margin: 0 }}>{`Hello ${document.customer.name},`}</p>
        <p style={{ fontSize: '14px' }}>{`Here is your invoice from ${document.organization.name}. The PDF is attached.`}</p>
      </Row>
      <Row>
        <Summary document={document} />
      </Row>
      <Row>
        <Button href={links.page}>View your invoice online</Button>
      </Row>
    </Frame>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head><body style="margin:0;padding:0">${body}</body></html>`;
}

/** The email's plain-text part. */
export function invoiceEmailText(document: InvoiceDocument, links: Pick<InvoiceLinks, 'page'>): string {
  const format = formatters(document);
  const { invoice } = document;
  return [
    `Hello ${document.customer.name},`,
    '',
    `Here is your invoice from ${document.organization.name}. The PDF is attached.`,
    '',
    `Invoice: ${invoice.number ?? 'DRAFT'}`,
    ...(invoice.issueDate ? [`Issued: ${format.date(invoice.issueDate)}`] : []),
    ...(invoice.dueDate ? [`Due: ${format.date(invoice.dueDate)}`] : []),
    `Total: ${format.money(invoice.total)}`,
    `Amount paid: ${format.money(invoice.amountPaid)}`,
    `Balance due: ${format.money(invoice.balanceDue)}`,
    '',
    `View it online: ${links.page}`,
  ].join('\n');
}

/** The page a link opens: the whole invoice as it is now, and its PDF. */
export function invoicePageHtml(document: InvoiceDocument, links: InvoiceLinks): string {
  const bill = document.customer;
  const body = renderToStaticMarkup(
    <Frame document={document} links={links}>
      <Row>
        <div style={{ fontSize: '22px', fontWeight: 700 }}>{document.invoice.status === 'VOID' ? `${invoiceName(document)} (void)` : invoiceName(document)}</div>
      </Row>
      <Row>
        <div style={{ fontSize: '12px', color: MUTED }}>Bill to</div>
        {bill.billTo.map((line, i) => (
          <div key={i} style={{ fontSize: '14px', fontWeight: i === 0 ? 700 : 400 }}>
            {line}
          </div>
        ))}
      </Row>
      <Row>
        <Summary document={document} />
      </Row>
      <Row>
        <Lines document={document} />
      </Row>
      {document.invoice.notes ? (
        <Row>
          <div style={{ fontSize: '13px', whiteSpace: 'pre-wrap' }}>{document.invoice.notes}</div>
        </Row>
      ) : null}
      <Row>
        <Button href={links.pdf}>Download the PDF</Button>
      </Row>
    </Frame>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeText(`${invoiceName(document)}: ${document.organization.name}`)}</title></head><body style="margin:0;padding:0">${body}</body></html>`;
}

/** A page for a link that no longer works (revoked, expired, or never issued). */
export function invoiceGonePage(): string {
  const body = renderToStaticMarkup(
    <div style={{ fontFamily: FONT, maxWidth: '480px', margin: '64px auto', padding: '0 16px', color: INK }}>
      <h1 style={{ fontSize: '20px' }}>This invoice is not available</h1>
      <p style={{ fontSize: '14px', color: MUTED }}>The link has expired or was withdrawn. Please ask your pool service for a new one.</p>
    </div>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Invoice not available</title></head><body>${body}</body></html>`;
}

/** The <title>, which React does not render here: the same escaping. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
