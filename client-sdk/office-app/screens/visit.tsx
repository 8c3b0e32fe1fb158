import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useMemo, useState, type FormEvent } from 'react';
import { addedChemicals, rangesOf, targetsFor, visitBalance, waterBodyOf, type Customer, type Service } from '../../../shared/index.js';
import { amountText, useChemistrySettings } from '../../app-kit/chemistry.js';
import { BalanceSummary, DoseList } from '../../app-kit/components/water-balance.js';
import { customerAddress, customerName, dateTime, money, readingsOf, visitStatus } from '../../app-kit/format.js';
import { useAction, useDoc, useDocs, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { OfficeResendReportDocument, OfficeRevokeReportLinksDocument, OfficeVisitReportDocument } from '../graphql/operations.generated.js';
import { usePhotoLinks } from '../../app-kit/photo-links.js';
import { href } from '../../app-kit/route.js';
import { useSyncedForm } from '../../app-kit/synced-form.js';
import { useTechnicians } from '../technicians.js';
import { ReadingsTable } from '../components/readings-table.js';
import { WaterAndNotes } from '../components/water-and-notes.js';
import { VisitFromServer } from './visit-from-server.js';
import { BILLED_HINT, billingStatusChoices } from '../billing-status.js';

/**
 * One visit: readings (marked against the organization's ranges for the customer's water), the
 * water's balance and the doses it needs (computed with the formula version the visit keeps),
 * notes, water, photos (full size on click), the chemicals and stock used on it, and the office's
 * edits (assignment, billing, flag, notes), written to the replica first and synced like a device's.
 */
export function VisitScreen({ id }: { id: string }) {
  const visit = useDoc('services', id);
  const customer = useDoc('customers', visit?.customerId ?? null);
  const type = useDoc('serviceTypes', visit?.typeId ?? null);
  const settings = useChemistrySettings();
  const ranges = useMemo(() => rangesOf(targetsFor(settings, waterBodyOf(customer))), [settings, customer]);
  if (visit === undefined) return <p className="loading">Loading…</p>;
  // Not in this browser: older than the office's window, or not synced here yet; the server has it.
  if (visit === null) return <VisitFromServer id={id} />;
  const readings = readingsOf(visit.chemicalReadings, ranges);
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
          <ReadingsTable readings={readings} />
          {visit.chemicalReadings && <Balance visit={visit} customer={customer} allInRange={readings.every((r) => !r.outOfRange)} />}
          <WaterAndNotes visit={visit} />
          <StockUsed visitId={visit.id} />
        </div>
        <div>
          <Photos visit={visit} />
          {visit.endTime && <CustomerReport visit={visit} />}
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

const REPORT_STATES: Record<string, string> = {
  WAITING: 'Waiting: it goes out once the visit has gone a few minutes without a change',
  QUEUED: 'Sent to the outbox',
  SKIPPED: 'Not sent',
};

/**
 * The report the customer gets of a completed visit: when it went out (the visit's dateEmailed /
 * dateTexted, from the replica), to whom or why not, and sending it again or withdrawing its links.
 */
function CustomerReport({ visit }: { visit: Service }) {
  const { api } = useSession();
  const report = useGraphQL(OfficeVisitReportDocument, { id: visit.id }, [visit.id, visit.updatedAt]);
  const action = useAction();
  const [revoked, setRevoked] = useState<number | null>(null);
  const resend = () =>
    action.run(async () => {
      await api.graphql(OfficeResendReportDocument, { id: visit.id });
      report.reload();
    });
  const revoke = () =>
    action.run(async () => {
      setRevoked((await api.graphql(OfficeRevokeReportLinksDocument, { id: visit.id })).revokeVisitReportLinks);
      report.reload();
    });
  const state = report.data?.visitReport;
  return (
    <section aria-labelledby="report-title" data-testid="visit-report">
      <h2 id="report-title">Report to the customer</h2>
      <dl className="facts">
        <dt>Emailed</dt>
        <dd>{visit.dateEmailed ? dateTime(visit.dateEmailed) : '—'}</dd>
        <dt>Texted</dt>
        <dd>{visit.dateTexted ? dateTime(visit.dateTexted) : '—'}</dd>
        <dt>Report</dt>
        <dd data-testid="visit-report-state">
          {!state ? (report.error ?? 'None: it was completed more than a week before it reached the server') : `${REPORT_STATES[state.status]}${state.round > 1 ? ` (sending ${state.round})` : ''}${state.outcome ? `: ${state.outcome}` : ''}`}
        </dd>
      </dl>
      {state?.messages.length ? (
        <ul className="report-messages">
          {state.messages.map((m) => (
            <li key={m.id}>
              {m.channel === 'EMAIL' ? 'Email' : 'Text'} to {m.recipient}: {m.status.toLowerCase()}
              {m.sentAt ? ` ${dateTime(m.sentAt)}` : ''}
              {m.status === 'STORED' ? ' (no sender configured on the server)' : ''}
              {m.error ? ` (${m.error})` : ''}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="actions" role="group" aria-label="Report">
        <button type="button" disabled={action.busy} onClick={() => void resend()}>
          Send the report again
        </button>
        <button type="button" disabled={action.busy || !state?.links.some((l) => !l.revokedAt)} onClick={() => void revoke()}>
          Withdraw its links
        </button>
      </div>
      {revoked !== null && <p role="status">{revoked === 1 ? '1 link withdrawn.' : `${revoked} links withdrawn.`}</p>}
      <Alert message={action.error} />
    </section>
  );
}

/** The balance and the doses the readings call for, from the customer's pool and the organization's settings. */
function Balance({ visit, customer, allInRange }: { visit: Service; customer: Customer | null | undefined; allInRange: boolean }) {
  const settings = useChemistrySettings();
  const balance = useMemo(() => visitBalance(visit, customer, settings), [visit, customer, settings]);
  return (
    <section aria-labelledby="balance-title" className="balance-section" data-testid="water-balance">
      <h2 id="balance-title">Water balance</h2>
      <BalanceSummary balance={balance} />
      <DoseList balance={balance} allInRange={allInRange} />
    </section>
  );
}

/** What was added (a dose with its corrections folded in, its suggestion beside it) and its cost. */
function StockUsed({ visitId }: { visitId: string }) {
  const movements = useDocs('stockMovements', { serviceId: visitId }, [visitId]);
  const items = useDocs('inventoryItems', {}, []);
  const locations = useDocs('inventoryLocations', {}, []);
  const currency = useDocs('organization', {}, [])?.[0]?.currency;
  const lines = addedChemicals(movements ?? [], items ?? []);
  const place = (id: string) => locations?.find((l) => l.id === id)?.name ?? id;
  return (
    <>
      <h2>Chemicals and stock used</h2>
      {!lines.length ? (
        <p>None recorded.</p>
      ) : (
        <ul>
          {lines.map((line) => (
            <li key={line.movementId}>
              {line.quantity} × {line.itemName} from {place(line.locationId)}
              {line.suggestedAmount != null && line.suggestedUnit && <span className="hint"> · suggested {amountText(line.suggestedAmount, line.suggestedUnit)} (formulas v{line.formulaVersion})</span>}
              {line.cost != null && <span className="hint"> · cost {money(line.cost, currency)}</span>}
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
  // A change synced from elsewhere shows in the form unless this user is editing it; only fields
  // changed from what the form showed when editing began are written, so an untouched field never
  // overwrites a change synced in meanwhile.
  const { form, base, set: setField, saved: storedForm } = useSyncedForm(visit, formOf);
  const [saved, setSaved] = useState(false);
  const billing = billingStatusChoices(visit.billingStatus);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => {
    setSaved(false);
    setField(field)(e);
  };
  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await save.run(() => client.patch('services', visit.id, changedFields(base, form)));
    if (done) {
      storedForm(form);
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
        <select value={form.billingStatus} onChange={set('billingStatus')} disabled={billing.locked} title={billing.locked ? BILLED_HINT : undefined}>
          {billing.values.map((s) => (
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
