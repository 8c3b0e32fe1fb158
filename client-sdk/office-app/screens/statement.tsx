import { useState } from 'react';
import { Field } from '../../app-kit/components/field.js';
import { customerName, money } from '../../app-kit/format.js';
import { useGraphQL } from '../../app-kit/hooks.js';
import { href, navigate } from '../../app-kit/route.js';
import { calendarDay, isoDay, today, useCurrency } from '../billing/format.js';
import { useBillingCustomer } from '../billing/use-customer.js';
import { BillingNav } from '../components/billing-nav.js';
import { CustomerPicker } from '../components/customer-picker.js';
import { OfficeStatementDocument, type OfficeStatementQuery } from '../graphql/operations.generated.js';

/**
 * A customer's statement for a span of days: what they owed at its start, each invoice and
 * payment in it with the running balance, and what they owe at its end; their credit beside it.
 * Opened from a customer's page or an unpaid invoice, or by picking a customer here.
 */
const threeMonthsAgo = () => {
  const d = new Date();
  return isoDay(new Date(d.getFullYear(), d.getMonth() - 3, 1));
};

export function StatementScreen({ customerId }: { customerId: string | null }) {
  const { id, customer, error } = useBillingCustomer(customerId);
  const currency = useCurrency();
  const [range, setRange] = useState({ from: threeMonthsAgo(), to: today() });
  return (
    <section aria-labelledby="statement-title">
      <h1 id="statement-title">Statement{customer ? ` of ${customerName(customer)}` : ''}</h1>
      <BillingNav current="statement" />
      {!id ? (
        <CustomerPicker value={null} onChange={(c) => c && navigate('statement', c.id)} />
      ) : (
        <>
          <p>
            <a href={href('customer', id)}>The customer's page</a> · <a href={href('payment', id)}>Record a payment</a> ·{' '}
            <button type="button" className="link" onClick={() => navigate('statement')}>
              another customer
            </button>
          </p>
          {customer && (
            <p data-testid="customer-balance">
              Balance due now {money(customer.balanceDue, currency)} · credit {money(customer.creditBalance, currency)}
            </p>
          )}
          {error && <p className="error">{error}</p>}
          <div className="card-form inline">
            <Field label="From">
              <input type="date" value={range.from} onChange={(e) => setRange({ ...range, from: e.target.value })} />
            </Field>
            <Field label="To (included)">
              <input type="date" value={range.to} onChange={(e) => setRange({ ...range, to: e.target.value })} />
            </Field>
          </div>
          <Statement customerId={id} from={range.from} to={range.to} />
        </>
      )}
    </section>
  );
}

const METHOD = { CASH: 'cash', CHECK: 'check', CARD: 'card', ACH: 'bank transfer', OTHER: 'other' } as const;

/** A line of the statement in words: the invoice by its number, a payment by its method and reference. */
function what(line: OfficeStatementQuery['customerStatement']['lines'][number]): string {
  if (line.kind === 'INVOICE') return `Invoice ${line.reference ?? ''}`.trim();
  const how = [line.method ? METHOD[line.method] : null, line.reference].filter(Boolean).join(' ');
  return `${line.kind === 'REVERSAL' ? 'Payment reversed' : 'Payment'}${how ? ` (${how})` : ''}`;
}

function Statement({ customerId, from, to }: { customerId: string; from: string; to: string }) {
  const answer = useGraphQL(OfficeStatementDocument, { customerId, from, to }, [customerId, from, to]);
  const statement = answer.data?.customerStatement;
  if (!statement) return <p role={answer.error ? 'alert' : 'status'} className={answer.error ? 'error' : 'loading'}>{answer.error ?? 'Loading the statement…'}</p>;
  const c = statement.currency;
  return (
    <>
      {answer.error && <p role="alert" className="error">{answer.error}</p>}
      <p className="statement-totals">
        <span>Invoiced {money(statement.invoiced, c)}</span>
        <span>Paid {money(statement.paid, c)}</span>
      </p>
      <table className="list" data-testid="statement">
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">What</th>
            <th scope="col" className="number">Charges</th>
            <th scope="col" className="number">Payments</th>
            <th scope="col" className="number">Balance</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>{calendarDay(from)}</td>
            <td>Balance brought forward</td>
            <td />
            <td />
            <td className="number">{money(statement.openingBalance, c)}</td>
          </tr>
          {statement.lines.map((line, i) => (
            <tr key={`${line.invoiceId ?? line.paymentId}-${i}`}>
              <td>{calendarDay(line.date)}</td>
              <td>{line.invoiceId && line.kind === 'INVOICE' ? <a href={href('invoice', line.invoiceId)}>{what(line)}</a> : what(line)}</td>
              <td className="number">{line.amount > 0 ? money(line.amount, c) : ''}</td>
              <td className="number">{line.amount < 0 ? money(-line.amount, c) : ''}</td>
              <td className="number">{money(line.balance, c)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={4}>
              Balance on {calendarDay(to)}
            </th>
            <td className="number" data-testid="statement-closing">
              {money(statement.closingBalance, c)}
            </td>
          </tr>
        </tfoot>
      </table>
    </>
  );
}
