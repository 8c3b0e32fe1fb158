import { useEffect, useState, type FormEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { BILLED_HINT, billingStatusChoices } from '../billing-status.js';
import { customerAddress, customerName, dateTime, readingsOf, visitStatus } from '../../app-kit/format.js';
import { useAction, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';
import { OfficeUpdateVisitDocument, OfficeVisitDocument } from '../graphql/operations.generated.js';
import { ReadingsTable } from '../components/readings-table.js';
import { WaterAndNotes } from '../components/water-and-notes.js';

/**
 * A visit this browser's replica does not hold: older than the office's window (shared/sync/README.md,
 * "What a device holds"), so read from the server. Its readings, water and notes as the technician left
 * them; the office's own fields (billing status, flag) are edited straight on the server, which
 * needs a connection.
 */
export function VisitFromServer({ id }: { id: string }) {
  const { viewer } = useSession();
  const loaded = useGraphQL(OfficeVisitDocument, { id }, [id]);
  const visit = loaded.data?.infiniteServices.edges[0]?.node;
  if (!visit) {
    if (loaded.loading) return <p className="loading">Asking the server for this visit…</p>;
    return <p role="alert">{loaded.error ? `This visit is not in this browser, and the server cannot be reached: ${loaded.error}` : 'There is no such visit (it may have been deleted).'}</p>;
  }
  const readings = readingsOf(visit.chemicalReadings);
  return (
    <section aria-labelledby="visit-title" className="visit">
      <p>
        <a href={href('board')}>← Board</a>
      </p>
      <h1 id="visit-title">
        Visit at <a href={href('customer', visit.customerId ?? '')}>{customerName(visit.customer)}</a>
      </h1>
      <p className="subtitle">
        {customerAddress(visit.customer)} · {dateTime(visit.startTime)} · <span className={`badge ${visitStatus(visit).replace(' ', '-')}`}>{visitStatus(visit)}</span>
      </p>
      <p className="hint" data-testid="from-server">
        Older than the {viewer.syncWindowDays ?? 14} days this browser keeps: shown from the server.
      </p>
      <div className="columns">
        <div>
          <h2>Readings</h2>
          <ReadingsTable readings={readings} />
          <WaterAndNotes visit={visit} />
        </div>
        <div>
          <h2>Photos</h2>
          {visit.photos.some((p) => p.url) ? (
            <ul className="photos">
              {visit.photos.flatMap((p) => (p.url ? [p] : [])).map((p) => (
                <li key={p.id}>
                  <img src={p.url!} alt={p.caption ?? 'Visit photo'} loading="lazy" />
                </li>
              ))}
            </ul>
          ) : (
            <p>No photos.</p>
          )}
          <OfficeFields id={visit.id} billingStatus={visit.billingStatus} flag={visit.flag} />
        </div>
      </div>
    </section>
  );
}

function OfficeFields({ id, ...stored }: { id: string; billingStatus: string | null; flag: string | null }) {
  const { api } = useSession();
  const [form, setForm] = useState({ billingStatus: stored.billingStatus ?? '', flag: stored.flag ?? '' });
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const billing = billingStatusChoices(stored.billingStatus);
  useEffect(() => setForm({ billingStatus: stored.billingStatus ?? '', flag: stored.flag ?? '' }), [stored.billingStatus, stored.flag]);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const done = await save.run(() => api.graphql(OfficeUpdateVisitDocument, { id, input: { billingStatus: form.billingStatus || null, flag: form.flag || null } }));
    if (done) setSaved(true);
  }
  return (
    <form className="card-form" onSubmit={(e) => void submit(e)} aria-label="Office fields">
      <h2>Billing</h2>
      <Field label="Billing status">
        <select value={form.billingStatus} onChange={(e) => setForm({ ...form, billingStatus: e.target.value })} disabled={billing.locked} title={billing.locked ? BILLED_HINT : undefined}>
          {billing.values.map((s) => (
            <option key={s} value={s}>
              {s || '—'}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Flag">
        <input value={form.flag} onChange={(e) => setForm({ ...form, flag: e.target.value })} />
      </Field>
      <Alert message={save.error} />
      {saved && <p role="status">Saved on the server.</p>}
      <button type="submit" disabled={save.busy}>
        Save
      </button>
    </form>
  );
}
