import { useState } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { customerName, money } from '../../app-kit/format.js';
import { href } from '../../app-kit/route.js';
import { calendarDay, invoiceState } from '../billing/format.js';
import { usePages } from '../billing/use-pages.js';
import { BillingNav } from '../components/billing-nav.js';
import { OfficeInvoicesDocument } from '../graphql/operations.generated.js';

/**
 * Unpaid and overdue invoices: every OPEN invoice (some of it still owed), or only those past their
 * due date; each opens, and its customer's statement and a payment are a click away.
 */
const PAGE = 50;

export function InvoicesScreen() {
  const [overdueOnly, setOverdueOnly] = useState(false);
  const invoices = usePages(OfficeInvoicesDocument, { first: PAGE, filter: { status: 'OPEN', overdue: overdueOnly || null } }, (a) => a.infiniteInvoices, [overdueOnly]);
  const rows = invoices.rows ?? [];
  const owed = rows.reduce((s, i) => s + i.balanceDue, 0);
  return (
    <section aria-labelledby="invoices-title">
      <h1 id="invoices-title">Unpaid & overdue</h1>
      <BillingNav current="invoices" />
      <div role="group" aria-label="Which invoices" className="filters">
        <button type="button" aria-pressed={!overdueOnly} onClick={() => setOverdueOnly(false)}>
          All unpaid
        </button>
        <button type="button" aria-pressed={overdueOnly} onClick={() => setOverdueOnly(true)}>
          Overdue only
        </button>
      </div>
      <p role="status" data-testid="invoices-summary">
        {invoices.rows ? `${rows.length}${invoices.more ? '+' : ''} invoice${rows.length === 1 ? '' : 's'}${rows.length ? `, ${money(owed, rows[0]!.currency)} owed${invoices.more ? ' on those shown' : ''}` : ''}` : 'Loading…'}
      </p>
      <Alert message={invoices.error} />
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Customer</th>
            <th scope="col">Issued</th>
            <th scope="col">Due</th>
            <th scope="col">Total</th>
            <th scope="col">Paid</th>
            <th scope="col">Balance due</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => {
            const state = invoiceState(i);
            return (
              <tr key={i.id} data-invoice={i.number ?? i.id}>
                <td>
                  <a href={href('invoice', i.id)}>{i.number}</a>
                </td>
                <td>
                  <a href={href('statement', i.customerId)}>{customerName(i.customer)}</a>
                </td>
                <td>{calendarDay(i.issueDate)}</td>
                <td>{calendarDay(i.dueDate)}</td>
                <td className="number">{money(i.total, i.currency)}</td>
                <td className="number">{money(i.amountPaid, i.currency)}</td>
                <td className="number" data-testid="balance-due">
                  {money(i.balanceDue, i.currency)}
                </td>
                <td>
                  <span className={state.className}>{state.label}</span> <a href={href('payment', i.customerId)}>Record a payment</a>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {invoices.more && (
        <button type="button" onClick={invoices.more}>
          Show more
        </button>
      )}
    </section>
  );
}
