import type { ReadingRange, Service } from '../../../shared/index.js';
import { useRangesFor } from '../../app-kit/chemistry.js';
import { TrendChart } from '../../app-kit/components/trend-chart.js';
import { customerAddress, customerName, dateTime, money, readingsOf, visitStatus } from '../../app-kit/format.js';
import { OfficeCustomerQuotedDocument } from '../graphql/operations.generated.js';
import { useDoc, useGraphQL } from '../../app-kit/hooks.js';
import { useCustomerHistory } from '../customer-history.js';
import { CustomerBilling } from '../components/customer-billing.js';
import { href } from '../../app-kit/route.js';

/**
 * One customer: contact data, pool and bodies of water, tags, the chemistry trend over their
 * visits, visit history, quotes and quoted prices. The customer and their recent work come from the
 * replica and update live; quoted prices (which do not replicate) and work older than the office's
 * window come from the server.
 */
export function CustomerScreen({ id }: { id: string }) {
  const local = useDoc('customers', id);
  const server = useGraphQL(OfficeCustomerQuotedDocument, { id }, [id]);
  const fromServer = server.data?.infiniteCustomers.edges[0]?.node;
  const customer = local ?? fromServer;
  // The replica holds the office's window; older visits and quotes come from the server.
  const { visits: history, quotes } = useCustomerHistory(id);
  const ranges = useRangesFor(local);
  if (!customer) return <p className="loading">{server.error ?? 'Loading…'}</p>;
  return (
    <section aria-labelledby="customer-title" className="customer">
      <p>
        <a href={href('customers')}>← Customers</a>
      </p>
      <h1 id="customer-title">{customerName(customer)}</h1>
      <p className="subtitle">
        {customerAddress(customer)} {customer.tags?.map((t) => <span key={t} className="tag">{t}</span>)}
      </p>
      <div className="columns">
        <div>
          <h2>Contact</h2>
          <dl className="facts">
            <dt>Phone</dt>
            <dd>{customer.phoneNumber ?? '—'}</dd>
            <dt>Email</dt>
            <dd>{customer.email ?? '—'}</dd>
            <dt>Status</dt>
            <dd>{customer.status ?? '—'}</dd>
            <dt>Customer since</dt>
            <dd>{customer.customerSinceDate ?? '—'}</dd>
            <dt>Gate code</dt>
            <dd>{customer.pool?.gateCode ?? '—'}</dd>
          </dl>
          <h2>Billing</h2>
          <CustomerBilling id={id} />
          <h2>Bodies of water</h2>
          {!customer.bodiesOfWater?.length ? (
            <p>None recorded.</p>
          ) : (
            <ul>
              {customer.bodiesOfWater.map((b) => (
                <li key={b!.id}>
                  {b!.name}: {b!.kind.toLowerCase()}
                  {b!.volumeGallons ? `, ${b!.volumeGallons.toLocaleString()} gal` : ''}
                  {b!.sanitizer ? `, ${b!.sanitizer.toLowerCase()}` : ''}
                  {b!.surface ? `, ${b!.surface.toLowerCase()}` : ''}
                </li>
              ))}
            </ul>
          )}
          <h2>Quoted prices</h2>
          {!fromServer?.quotedPrices?.length ? (
            <p>{server.error ? 'Not available offline.' : 'None.'}</p>
          ) : (
            <ul>
              {fromServer.quotedPrices.flatMap((p) => (p ? [p] : [])).map((p) => (
                <li key={p.id}>
                  {p.serviceTypeDisplay ?? 'Any service'}: {money(p.price)}
                </li>
              ))}
            </ul>
          )}
          <h2>Quotes</h2>
          {!quotes?.length ? (
            <p>None.</p>
          ) : (
            <ul>
              {quotes.map((q) => (
                <li key={q.id}>
                  <a href={href('quote', q.id)}>
                    {q.number} {q.title}
                  </a>{' '}
                  <span className={`badge quote-${q.status.toLowerCase()}`}>{q.status}</span> {money(q.total)}
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h2>Chemistry trend</h2>
          <Trends visits={history} ranges={ranges} />
        </div>
      </div>
      <h2>Visit history</h2>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Status</th>
            <th scope="col">Readings</th>
            <th scope="col">Notes</th>
          </tr>
        </thead>
        <tbody>
          {history.map((v) => (
            <tr key={v.id}>
              <td>
                <a href={href('visit', v.id)}>{dateTime(v.startTime)}</a>
              </td>
              <td>{visitStatus(v)}</td>
              <td>
                {readingsOf(v.chemicalReadings, ranges).map((r) => (
                  <span key={r.field} className={r.outOfRange ? 'reading out-of-range' : 'reading'}>
                    {r.label} {r.value}
                  </span>
                ))}
              </td>
              <td>{v.notes}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Trends({ visits, ranges }: { visits: Pick<Service, 'startTime' | 'chemicalReadings'>[]; ranges: Partial<Record<string, ReadingRange>> }) {
  const series = (field: 'freeChlorine' | 'ph' | 'totalAlkalinity') =>
    visits
      .flatMap((v) => (typeof v.chemicalReadings?.[field] === 'number' ? [{ at: v.startTime!, value: v.chemicalReadings[field]! }] : []))
      .reverse();
  const charts = (['freeChlorine', 'ph', 'totalAlkalinity'] as const).map((field) => ({ field, points: series(field) })).filter((c) => c.points.length);
  if (!charts.length) return <p>No readings yet.</p>;
  return (
    <div data-testid="trend">
      {charts.map((c) => (
        <TrendChart key={c.field} field={c.field} points={c.points} ranges={ranges} />
      ))}
    </div>
  );
}
