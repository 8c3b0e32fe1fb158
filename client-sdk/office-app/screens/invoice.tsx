import { useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { Loading } from '../../app-kit/components/loading.js';
import { customerName, dateTime, money } from '../../app-kit/format.js';
import { useAction, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';
import { calendarDay, invoiceState, period } from '../billing/format.js';
import { BillingNav } from '../components/billing-nav.js';
import { InvoiceLines } from '../components/invoice-lines.js';
import { OfficeFinalizeInvoiceDocument, OfficeInvoiceDocument, OfficeSendInvoiceDocument, OfficeVoidInvoiceDocument } from '../graphql/operations.generated.js';

/**
 * One invoice: its lines with where each comes from, its money, the payments put against it, its
 * PDF; a draft is finalized here, an invoice sent (again), and one nothing was paid on voided with
 * a reason (the server refuses what its rules do not allow, and the form says why).
 */
export function InvoiceScreen({ id }: { id: string }) {
  const { api } = useSession();
  const answer = useGraphQL(OfficeInvoiceDocument, { id }, [id]);
  const action = useAction();
  const [reason, setReason] = useState('');
  const invoice = answer.data?.invoice;
  if (!invoice) return <Loading title="Invoice" error={answer.error} />;
  const c = invoice.currency;
  const state = invoiceState(invoice);
  const act = (call: () => Promise<unknown>) => action.run(async () => (await call(), answer.reload()));
  return (
    <section aria-labelledby="invoice-title" className="invoice">
      <BillingNav current="invoices" />
      <h1 id="invoice-title">{invoice.number ? `Invoice ${invoice.number}` : 'Draft invoice'}</h1>
      <p className="subtitle">
        For <a href={href('customer', invoice.customerId)}>{customerName(invoice.customer)}</a> ·{' '}
        <span className={state.className} data-testid="invoice-state">
          {state.label}
        </span>
        {invoice.periodStart && ` · ${period(invoice.periodStart, invoice.periodEnd)}`}
      </p>
      <dl className="facts">
        <dt>Issued</dt>
        <dd>{calendarDay(invoice.issueDate) || 'not yet (a draft)'}</dd>
        <dt>Due</dt>
        <dd>{calendarDay(invoice.dueDate) || '—'}</dd>
        <dt>Paid</dt>
        <dd>{money(invoice.amountPaid, c)}</dd>
        <dt>Balance due</dt>
        <dd data-testid="invoice-balance">{money(invoice.balanceDue, c)}</dd>
        <dt>Sent</dt>
        <dd>{invoice.sentAt ? dateTime(invoice.sentAt) : 'not yet'}</dd>
        {invoice.voidReason && (
          <>
            <dt>Voided</dt>
            <dd>
              {dateTime(invoice.voidedAt)}: {invoice.voidReason}
            </dd>
          </>
        )}
      </dl>
      <InvoiceLines lines={invoice.lines} currency={c} totals={invoice} />
      {invoice.notes && <p className="notes">{invoice.notes}</p>}
      <h2>Payments</h2>
      {invoice.applications.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <ul>
          {invoice.applications.map((a) => (
            <li key={a.id}>
              {dateTime(a.appliedAt)}: {money(a.amount, c)} ({a.payment.method.toLowerCase()}
              {a.payment.reference ? ` ${a.payment.reference}` : ''}
              {a.payment.kind === 'REVERSAL' ? ', reversed' : ''})
            </li>
          ))}
        </ul>
      )}
      <div className="actions" role="group" aria-label="Invoice actions">
        {invoice.status === 'DRAFT' && (
          <button type="button" disabled={action.busy} onClick={() => void act(() => api.graphql(OfficeFinalizeInvoiceDocument, { id }))}>
            Finalize
          </button>
        )}
        {(invoice.status === 'OPEN' || invoice.status === 'PAID') && (
          <button type="button" disabled={action.busy} onClick={() => void act(() => api.graphql(OfficeSendInvoiceDocument, { id }))}>
            {invoice.sentAt ? 'Send again' : 'Send'}
          </button>
        )}
        {invoice.status === 'OPEN' && <a href={href('payment', invoice.customerId)}>Record a payment</a>}
        {invoice.pdfUrl && (
          <a href={invoice.pdfUrl} target="_blank" rel="noreferrer" data-testid="invoice-pdf">
            Open the PDF
          </a>
        )}
      </div>
      {invoice.status === 'OPEN' && (
        <form className="card-form inline" onSubmit={(e) => (e.preventDefault(), void act(() => api.graphql(OfficeVoidInvoiceDocument, { id, reason })))}>
          <Field label="Reason to void it">
            <input required value={reason} onChange={(e) => setReason(e.target.value)} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Void
          </button>
        </form>
      )}
      <Alert message={action.error} />
    </section>
  );
}
