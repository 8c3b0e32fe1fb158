import { useState } from 'react';
import { Field } from '../../app-kit/components/field.js';
import { money } from '../../app-kit/format.js';
import { useGraphQL } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';
import { today } from '../billing/format.js';
import { BillingNav } from '../components/billing-nav.js';
import { OfficeAgingDocument, type OfficeAgingQuery } from '../graphql/operations.generated.js';

/**
 * The receivables' aging on a day: what is owed, by how long past its due date (not yet due, 1-30,
 * 31-60, 61-90 and over 90 days), in all and per customer; a customer opens their statement.
 */
type Buckets = OfficeAgingQuery['receivablesAging']['totals'];
const BUCKETS: [Exclude<keyof Buckets, '__typename'>, string][] = [
  ['current', 'Current'],
  ['days1to30', '1-30 days'],
  ['days31to60', '31-60 days'],
  ['days61to90', '61-90 days'],
  ['over90', 'Over 90 days'],
  ['total', 'Total'],
];

export function AgingScreen() {
  const [asOf, setAsOf] = useState(today);
  const answer = useGraphQL(OfficeAgingDocument, { asOf }, [asOf]);
  const aging = answer.data?.receivablesAging;
  const currency = aging?.currency;
  return (
    <section aria-labelledby="aging-title">
      <h1 id="aging-title">Aging</h1>
      <BillingNav current="aging" />
      <div className="card-form inline">
        <Field label="As of">
          <input type="date" value={asOf} onChange={(e) => setAsOf(e.target.value)} />
        </Field>
      </div>
      {answer.error && <p role="alert" className="error">{answer.error}</p>}
      {!aging ? (
        !answer.error && <p className="loading">Loading…</p>
      ) : (
        <table className="list aging" data-testid="aging">
          <thead>
            <tr>
              <th scope="col">Customer</th>
              {BUCKETS.map(([key, label]) => (
                <th scope="col" key={key} className="number">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {aging.customers.map((row) => (
              <tr key={row.customer.id}>
                <td>
                  <a href={href('statement', row.customer.id)}>{row.customerName}</a>
                </td>
                {BUCKETS.map(([key]) => (
                  <td key={key} className="number">
                    {row.buckets[key] ? money(row.buckets[key], currency) : '—'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All customers</th>
              {BUCKETS.map(([key]) => (
                <td key={key} className="number" data-bucket={key}>
                  {money(aging.totals[key], currency)}
                </td>
              ))}
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}
