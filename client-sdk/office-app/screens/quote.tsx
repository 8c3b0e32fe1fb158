import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useRef } from 'react';
import { QUOTE_TRANSITIONS, type QuoteStatus } from '../../../shared/index.js';
import { customerName, dateTime, money } from '../../app-kit/format.js';
import { OfficeConvertQuoteDocument, OfficeQuotePdfDocument, OfficeQuoteStatusDocument } from '../graphql/operations.generated.js';
import { useAction, useDoc, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { href, navigate } from '../../app-kit/route.js';

/**
 * One quote: lines and totals as the server computed them, the moves its state allows
 * (DRAFT -> SENT -> ACCEPTED / DECLINED / EXPIRED), its PDF, and once accepted, its invoice (a
 * draft holding its lines, made once).
 */
const ACTION_LABELS: Record<QuoteStatus, string> = {
  DRAFT: 'Back to draft',
  SENT: 'Mark as sent',
  ACCEPTED: 'Customer accepted',
  DECLINED: 'Customer declined',
  EXPIRED: 'Mark expired',
};

export function QuoteScreen({ id }: { id: string }) {
  const { api } = useSession();
  const quote = useDoc('quotes', id);
  const customer = useDoc('customers', quote?.customerId ?? null);
  const pdf = useGraphQL(OfficeQuotePdfDocument, { id }, [id, quote?.updatedAt]);
  const action = useAction();
  const file = useRef<HTMLInputElement>(null);
  if (quote === undefined) return <p className="loading">Loading…</p>;
  if (quote === null) return <p role="alert">This quote is not in the replica.</p>;

  const move = (status: QuoteStatus) => action.run(() => api.graphql(OfficeQuoteStatusDocument, { id, status }));
  const removeUploaded = () =>
    action.run(async () => {
      await api.rest('DELETE', `/quotes/${encodeURIComponent(id)}/pdf`);
      pdf.reload();
    });
  const upload = () =>
    action.run(async () => {
      const chosen = file.current?.files?.[0];
      if (!chosen) throw new Error('Choose a PDF file first.');
      await api.upload(`/quotes/${encodeURIComponent(id)}/pdf`, chosen);
      pdf.reload();
    });

  return (
    <section aria-labelledby="quote-title" className="quote">
      <p>
        <a href={href('quotes')}>← Quotes</a>
      </p>
      <h1 id="quote-title">
        {quote.number} {quote.title}
      </h1>
      <p className="subtitle">
        For <a href={href('customer', quote.customerId)}>{customerName(customer)}</a> ·{' '}
        <span className={`badge quote-${quote.status.toLowerCase()}`} data-testid="quote-status">
          {quote.status}
        </span>
        {quote.acceptedAt && ` · accepted ${dateTime(quote.acceptedAt)}`}
      </p>
      <table className="list lines">
        <thead>
          <tr>
            <th scope="col">Description</th>
            <th scope="col">Quantity</th>
            <th scope="col">Unit price</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {quote.lineItems.map((line) => (
            <tr key={line.id}>
              <td>{line.description}</td>
              <td className="number">{line.quantity}</td>
              <td className="number">{money(line.unitPrice)}</td>
              <td className="number">{money(line.amount)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={3}>
              Subtotal
            </th>
            <td className="number">{money(quote.subtotal)}</td>
          </tr>
          <tr>
            <th scope="row" colSpan={3}>
              Tax
            </th>
            <td className="number">{money(quote.tax)}</td>
          </tr>
          <tr>
            <th scope="row" colSpan={3}>
              Total
            </th>
            <td className="number" data-testid="quote-total">
              {money(quote.total)}
            </td>
          </tr>
        </tfoot>
      </table>
      {quote.notes && <p className="notes">{quote.notes}</p>}
      <div className="actions" role="group" aria-label="Status">
        {QUOTE_TRANSITIONS[quote.status].map((next) => (
          <button key={next} type="button" disabled={action.busy} onClick={() => void move(next)}>
            {ACTION_LABELS[next]}
          </button>
        ))}
        {QUOTE_TRANSITIONS[quote.status].length === 0 && <span>This quote is final.</span>}
        {quote.status === 'ACCEPTED' && (
          // Converting again answers the same draft: the quote's lines are billed once.
          <button type="button" disabled={action.busy} onClick={() => void action.run(async () => navigate('invoice', (await api.graphql(OfficeConvertQuoteDocument, { quoteId: id })).convertQuoteToInvoice.id))}>
            Invoice it
          </button>
        )}
      </div>
      <h2>PDF</h2>
      {/* Every quote has a PDF: the uploaded one while there is one, else one generated from the quote. */}
      {pdf.data?.quote.pdfUrl ? (
        <p>
          <a href={pdf.data.quote.pdfUrl} target="_blank" rel="noreferrer" data-testid="quote-pdf">
            Open the PDF
          </a>{' '}
          <span data-testid="quote-pdf-kind">{quote.pdfKey ? 'Uploaded PDF' : 'Generated from the quote'}</span>
          {quote.pdfKey && (
            <>
              {' '}
              <button type="button" disabled={action.busy} onClick={() => void removeUploaded()}>
                Remove the uploaded PDF
              </button>
            </>
          )}
        </p>
      ) : (
        <p>{pdf.error ?? 'Loading the PDF link…'}</p>
      )}
      <div className="upload">
        <Field label="Upload a PDF (used instead of the generated one)">
          <input ref={file} type="file" accept="application/pdf" />
        </Field>
        <button type="button" disabled={action.busy} onClick={() => void upload()}>
          Upload
        </button>
      </div>
      <Alert message={action.error} />
    </section>
  );
}
