import { useRangesFor } from '../../app-kit/chemistry.js';
import { TrendChart } from '../../app-kit/components/trend-chart.js';
import { customerAddress, customerName, day, readingsOf } from '../../app-kit/format.js';
import { useDoc } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';
import { CustomerBalance } from '../components/take-payment.js';
import { useCustomerHistory } from '../data.js';

/**
 * A customer at the gate: the address (opens the phone's maps), the gate code and access notes, what
 * they owe and taking a payment, the pools and spas, and the last visits' readings as a small trend.
 */
export function CustomerScreen({ id }: { id: string }) {
  const customer = useDoc('customers', id);
  const history = useCustomerHistory(id);
  const ranges = useRangesFor(customer);
  if (customer === undefined) return <p className="loading">Loading…</p>;
  if (customer === null) return <p className="empty">This customer is not on this phone.</p>;
  const address = customerAddress(customer);
  const maps = `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(address)}`;
  const recent = history.filter((v) => v.chemicalReadings).slice(0, 8);
  const points = (field: 'freeChlorine' | 'ph') => recent.flatMap((v) => (typeof v.chemicalReadings?.[field] === 'number' ? [{ at: v.startTime!, value: v.chemicalReadings[field] }] : [])).reverse();
  return (
    <section aria-labelledby="customer-title" className="customer">
      <h1 id="customer-title">{customerName(customer)}</h1>
      {address && (
        <p>
          <a className="button" href={maps} target="_blank" rel="noreferrer">
            {address} (open in maps)
          </a>
        </p>
      )}
      <dl className="facts">
        <dt>Gate code</dt>
        <dd>{customer.pool?.gateCode ?? '—'}</dd>
        <dt>Phone</dt>
        <dd>{customer.phoneNumber ? <a href={`tel:${customer.phoneNumber}`}>{customer.phoneNumber}</a> : '—'}</dd>
        <dt>Notes</dt>
        <dd>{customer.notes ?? '—'}</dd>
        {customer.pool?.notes && (
          <>
            <dt>Pool notes</dt>
            <dd>{customer.pool.notes}</dd>
          </>
        )}
      </dl>
      <CustomerBalance customerId={customer.id} />
      <h2>Pools and spas</h2>
      <ul>
        {customer.pool?.kind && (
          <li>
            {customer.pool.kind.toLowerCase()}
            {customer.pool.volumeGallons ? `, ${customer.pool.volumeGallons.toLocaleString()} gal` : ''}
            {customer.pool.sanitizer ? `, ${customer.pool.sanitizer.toLowerCase()}` : ''}
            {customer.pool.surface ? `, ${customer.pool.surface.toLowerCase()}` : ''}
          </li>
        )}
        {(customer.bodiesOfWater ?? []).map((b) => (
          <li key={b.id}>
            {b.name}: {b.kind.toLowerCase()}
            {b.volumeGallons ? `, ${b.volumeGallons.toLocaleString()} gal` : ''}
          </li>
        ))}
        {!customer.pool?.kind && !customer.bodiesOfWater?.length && <li>None recorded.</li>}
      </ul>
      <h2>Last visits</h2>
      {recent.length === 0 ? (
        <p className="empty">No readings on this phone yet.</p>
      ) : (
        <>
          <TrendChart field="freeChlorine" points={points('freeChlorine')} ranges={ranges} />
          <TrendChart field="ph" points={points('ph')} ranges={ranges} />
          <ul className="history">
            {recent.map((v) => (
              <li key={v.id}>
                <a href={href('visit', v.id)}>{day(v.startTime)}</a>{' '}
                {readingsOf(v.chemicalReadings, ranges)
                  .map((r) => `${r.label} ${r.value}${r.outOfRange ? ' (!)' : ''}`)
                  .join(', ')}
              </li>
            ))}
          </ul>
        </>
      )}
      <p>
        <a className="button" href={href('quote', customer.id)}>
          New quote
        </a>
      </p>
    </section>
  );
}
