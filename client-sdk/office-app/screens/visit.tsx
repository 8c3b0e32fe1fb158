import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useEffect, useState, type FormEvent } from 'react';
import type { Service } from '../../../shared/index.js';
import { customerAddress, customerName, dateTime, readingsOf, visitStatus } from '../../app-kit/format.js';
import { useAction, useDoc, useDocs, useSession } from '../../app-kit/hooks.js';
import { usePhotoLinks } from '../../app-kit/photo-links.js';
import { href } from '../../app-kit/route.js';
import { useTechnicians } from '../technicians.js';

/**
 * One visit: readings (out-of-range ones marked), notes, water, photos (full size on click), the
 * stock used on it, and the office's edits (assignment, billing, flag, notes), written to the
 * replica first and synced like a device's.
 */
export function VisitScreen({ id }: { id: string }) {
  const visit = useDoc('services', id);
  const customer = useDoc('customers', visit?.customerId ?? null);
  const type = useDoc('serviceTypes', visit?.typeId ?? null);
  if (visit === undefined) return <p className="loading">Loading…</p>;
  if (visit === null) return <p role="alert">This visit is not in the replica (deleted, or not synced yet).</p>;
  const readings = readingsOf(visit.chemicalReadings);
  return (
    <section aria-labelledby="visit-title" className="visit">
      <p>
        <a href={href('board')}>← Board</a>
      </p>
      <h1 id="visit-title">
        {type?.display ?? 'Visit'} at <a href={href('customer', visit.customerId ?? '')}>{customerName(customer)}</a>
      </h1>
      <p className="subtitle">
        {customerAddress(customer)} · {dateTime(visit.startTime)} · <span className={`badge ${visitStatus(visit).replace(' ', '-')}`}>{visitStatus(visit)}</span>
      </p>
      <div className="columns">
        <div>
          <h2>Readings</h2>
          {readings.length === 0 ? (
            <p>No readings recorded.</p>
          ) : (
            <table className="readings">
              <tbody>
                {readings.map((r) => (
                  <tr key={r.field} className={r.outOfRange ? 'out-of-range' : undefined}>
                    <th scope="row">{r.label}</th>
                    <td>
                      {r.value} {r.unit} {r.outOfRange && <span className="flag-text">out of range</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>Water</h2>
          <dl className="facts">
            <dt>Condition</dt>
            <dd>{visit.waterCondition ?? '—'}</dd>
            <dt>Level</dt>
            <dd>{visit.waterLevel ?? '—'}</dd>
            <dt>Vacuumed</dt>
            <dd>{visit.vacuum ?? '—'}</dd>
          </dl>
          <h2>Notes</h2>
          <p className="notes" data-testid="visit-notes">
            {visit.notes || 'No notes.'}
          </p>
          <StockUsed visitId={visit.id} />
        </div>
        <div>
          <Photos visit={visit} />
          <EditVisit visit={visit} />
        </div>
      </div>
    </section>
  );
}

/** Photos, full size on click; links come from the server (see photo-links.ts). */
function Photos({ visit }: { visit: Service }) {
  const links = usePhotoLinks([visit]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <h2>Photos</h2>
      {visit.photos.length === 0 && <p>No photos.</p>}
      <ul className="photos">
        {visit.photos.map((photo) => {
          const url = links.get(photo.id);
          return (
            <li key={photo.id}>
              {url ? (
                <button type="button" className="photo" onClick={() => setOpen(url)} aria-label={`Open photo ${photo.caption ?? ''} full size`}>
                  <img src={url} alt={photo.caption ?? 'Visit photo'} />
                </button>
              ) : (
                <span className="photo-pending">{photo.size == null ? 'Still uploading from the device…' : 'Shown when online'}</span>
              )}
              {photo.caption && <span className="caption">{photo.caption}</span>}
            </li>
          );
        })}
      </ul>
      {open && (
        <div className="lightbox" role="dialog" aria-label="Photo" onClick={() => setOpen(null)}>
          <img src={open} alt="Visit photo, full size" />
          <button type="button" autoFocus onClick={() => setOpen(null)}>
            Close
          </button>
        </div>
      )}
    </>
  );
}

function StockUsed({ visitId }: { visitId: string }) {
  const movements = useDocs('stockMovements', { serviceId: visitId }, [visitId]);
  const items = useDocs('inventoryItems', {}, []);
  const locations = useDocs('inventoryLocations', {}, []);
  const name = (list: { id: string; name: string }[] | null, id: string) => list?.find((x) => x.id === id)?.name ?? id;
  return (
    <>
      <h2>Stock used</h2>
      {!movements?.length ? (
        <p>None recorded.</p>
      ) : (
        <ul>
          {movements.map((m) => (
            <li key={m.id}>
              {-m.delta} × {name(items, m.itemId)} from {name(locations, m.locationId)}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The office's edits; assignment and day are also what dragging a card on the board changes. */
function EditVisit({ visit }: { visit: Service }) {
  const { client } = useSession();
  const technicians = useTechnicians();
  const save = useAction();
  const [form, setForm] = useState(() => formOf(visit));
  // What the form showed when editing began: only fields changed from it are written, so an
  // untouched field never overwrites a change synced in meanwhile.
  const [base, setBase] = useState(form);
  const [saved, setSaved] = useState(false);
  // A change synced from elsewhere shows in the form unless this user is editing it.
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (dirty) return;
    setForm(formOf(visit));
    setBase(formOf(visit));
  }, [visit, dirty]);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => {
    setDirty(true);
    setSaved(false);
    setForm({ ...form, [field]: e.target.value });
  };
  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await save.run(() => client.patch('services', visit.id, changedFields(base, form)));
    if (done) {
      setDirty(false);
      setSaved(true);
    }
  }
  return (
    <form className="card-form" onSubmit={submit} aria-labelledby="edit-visit-title">
      <h2 id="edit-visit-title">Edit visit</h2>
      <Field label="Technician">
        <select value={form.technicianId} onChange={set('technicianId')}>
          <option value="">Unassigned</option>
          {technicians.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Start">
        <input type="datetime-local" value={form.start} onChange={set('start')} />
      </Field>
      <Field label="Billing status">
        <select value={form.billingStatus} onChange={set('billingStatus')}>
          {['', 'NOT_BILLED', 'READY', 'INVOICED'].map((s) => (
            <option key={s} value={s}>
              {s || '—'}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Flag">
        <input value={form.flag} onChange={set('flag')} maxLength={200} />
      </Field>
      <Field label="Notes">
        <textarea value={form.notes} onChange={set('notes')} rows={4} maxLength={20000} />
      </Field>
      <button type="submit" disabled={save.busy}>
        Save
      </button>
      {saved && <span role="status">Saved; it syncs when the server is reachable.</span>}
      <Alert message={save.error} />
    </form>
  );
}

type VisitForm = ReturnType<typeof formOf>;

function changedFields(before: VisitForm, after: VisitForm): Partial<Service> {
  const patch: Partial<Service> = {};
  if (after.technicianId !== before.technicianId) patch.newTechnicianId = after.technicianId || null;
  if (after.start !== before.start) patch.startTime = after.start ? new Date(after.start).toISOString() : null;
  if (after.billingStatus !== before.billingStatus) patch.billingStatus = after.billingStatus || null;
  if (after.flag !== before.flag) patch.flag = after.flag || null;
  if (after.notes !== before.notes) patch.notes = after.notes || null;
  return patch;
}

function formOf(visit: Service) {
  return {
    technicianId: visit.newTechnicianId ?? '',
    start: visit.startTime ? localInput(visit.startTime) : '',
    billingStatus: visit.billingStatus ?? '',
    flag: visit.flag ?? '',
    notes: visit.notes ?? '',
  };
}

/** An ISO time as a datetime-local input wants it (local time, minutes). */
function localInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
