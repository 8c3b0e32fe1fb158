import { useMemo, useState, type FormEvent } from 'react';
import { ChemicalReadingShape, rangesOf, targetsFor, waterBodyOf, type Customer } from '../../../shared/index.js';
import { useChemistrySettings } from '../../app-kit/chemistry.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { customerAddress, customerName, dateTime, time, visitStatus, type ChemicalReading } from '../../app-kit/format.js';
import { useAction, useDoc, useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';
import { useSyncedForm } from '../../app-kit/synced-form.js';
import { ChemicalsUsed } from '../components/chemicals-used.js';
import { VisitPhotos } from '../components/visit-photos.js';
import { WaterBalancePanel } from '../components/water-balance.js';
import { useCustomerHistory, type Visit } from '../data.js';

/**
 * One visit, the way a technician works it: start, readings (each flagged when outside the
 * organization's range for this water, the last visit's beside it) with the water's balance and
 * what to add as they are typed, water, notes, photos, chemicals used; complete. Everything is
 * written to the phone first and syncs when it can.
 */
export function VisitScreen({ id }: { id: string }) {
  const visit = useDoc('services', id);
  const customer = useDoc('customers', visit?.customerId ?? null);
  const { client } = useSession();
  const action = useAction();
  if (visit === undefined) return <p className="loading">Loading…</p>;
  if (visit === null) return <p className="empty">This visit is not on this phone (it may have been given to another technician).</p>;
  const status = visitStatus(visit);
  const now = () => new Date().toISOString();
  return (
    <section aria-labelledby="visit-title" className="visit">
      <h1 id="visit-title">{customer ? <a href={href('customer', customer.id)}>{customerName(customer)}</a> : 'Visit'}</h1>
      <p className="subtitle">
        {customerAddress(customer)} · {dateTime(visit.startTime)} · <span className={`badge ${status.replace(' ', '-')}`}>{status}</span>
      </p>
      {customer?.pool?.gateCode && <p className="gate">Gate code: {customer.pool.gateCode}</p>}
      <div className="actions">
        {status === 'scheduled' && (
          <button type="button" className="primary" onClick={() => action.run(() => client.updateVisit(id, { startTime: now() }))}>
            Start visit
          </button>
        )}
        {status !== 'done' && (
          <button type="button" className={status === 'in progress' ? 'primary' : undefined} onClick={() => action.run(() => client.updateVisit(id, { endTime: now() }))}>
            Complete visit
          </button>
        )}
        {status === 'done' && <span>Completed at {time(visit.endTime)}</span>}
      </div>
      <Alert message={action.error} />
      <ReadingsForm visit={visit} customer={customer} />
      <VisitPhotos visit={visit} />
      <ChemicalsUsed visit={visit} />
      {customer && (
        <p>
          <a className="button" href={href('quote', customer.id)}>
            New quote for {customerName(customer)}
          </a>
        </p>
      )}
    </section>
  );
}

type ReadingField = Exclude<keyof ChemicalReading, 'takenAt'>;
const READINGS: { field: ReadingField; label: string; unit: string; step: string }[] = [
  { field: 'freeChlorine', label: 'Free chlorine', unit: 'ppm', step: '0.1' },
  { field: 'totalChlorine', label: 'Total chlorine', unit: 'ppm', step: '0.1' },
  { field: 'ph', label: 'pH', unit: '', step: '0.1' },
  { field: 'totalAlkalinity', label: 'Alkalinity', unit: 'ppm', step: '1' },
  { field: 'calciumHardness', label: 'Calcium hardness', unit: 'ppm', step: '1' },
  { field: 'cyanuricAcid', label: 'Cyanuric acid', unit: 'ppm', step: '1' },
  { field: 'salt', label: 'Salt', unit: 'ppm', step: '10' },
  { field: 'phosphates', label: 'Phosphates', unit: 'ppb', step: '1' },
  { field: 'tds', label: 'TDS', unit: 'ppm', step: '10' },
  { field: 'temperature', label: 'Water temperature', unit: '°F', step: '1' },
];
const WATER_CONDITIONS = ['CLEAR', 'CLOUDY', 'GREEN', 'ALGAE'];
const WATER_LEVELS = ['LOW', 'NORMAL', 'HIGH'];

type Form = Record<ReadingField | 'waterCondition' | 'waterLevel' | 'notes', string>;

/** The readings typed so far, as numbers (a field left empty, or not yet a number, is not measured). */
function typedReadings(form: Form): Partial<ChemicalReading> {
  const readings: Partial<Record<ReadingField, number>> = {};
  for (const { field } of READINGS) {
    const value = form[field].trim() === '' ? NaN : Number(form[field]);
    if (Number.isFinite(value)) readings[field] = value;
  }
  return readings;
}

function formOf(visit: Visit): Form {
  const readings = visit.chemicalReadings;
  const values = Object.fromEntries(READINGS.map(({ field }) => [field, readings?.[field] == null ? '' : String(readings[field])]));
  return { ...(values as Record<ReadingField, string>), waterCondition: visit.waterCondition ?? '', waterLevel: visit.waterLevel ?? '', notes: visit.notes ?? '' };
}

/** Readings, water and notes: typed freely, saved to the phone at once; the balance follows as they are typed. */
function ReadingsForm({ visit, customer }: { visit: Visit; customer: Customer | null | undefined }) {
  const { client } = useSession();
  const history = useCustomerHistory(visit.customerId);
  const settings = useChemistrySettings();
  const ranges = useMemo(() => rangesOf(targetsFor(settings, waterBodyOf(customer))), [settings, customer]);
  const last = history.find((v) => v.id !== visit.id && v.chemicalReadings && (v.startTime ?? '') < (visit.startTime ?? '\uffff'));
  const { form, dirty, set: setField, saved: storedForm } = useSyncedForm(visit, formOf);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const set = (field: keyof Form) => (e: { target: { value: string } }) => {
    setSaved(false);
    setField(field)(e);
  };
  const typed = useMemo(() => typedReadings(form), [form]);
  /** Saves what is typed; false when it cannot be (a value that is not a number, or one a test kit cannot show). */
  async function store(): Promise<boolean> {
    const readings = Object.fromEntries(READINGS.map(({ field }) => [field, form[field].trim() === '' ? null : Number(form[field])]));
    const bad = READINGS.find(({ field }) => readings[field] !== null && !Number.isFinite(readings[field]));
    if (bad) {
      save.setError(`${bad.label} must be a number.`);
      return false;
    }
    const done = await save.run(() =>
      client.updateVisit(visit.id, {
        readings: { ...readings, takenAt: new Date().toISOString() },
        waterCondition: form.waterCondition || null,
        waterLevel: form.waterLevel || null,
        notes: form.notes || null,
      }),
    );
    if (!done) return false;
    storedForm(form);
    setSaved(true);
    return true;
  }
  async function submit(event: FormEvent) {
    event.preventDefault();
    await store();
  }
  return (
    <form className="card readings" onSubmit={submit} aria-labelledby="readings-title">
      <h2 id="readings-title">Readings</h2>
      <div className="reading-grid">
        {READINGS.map(({ field, label, unit, step }) => {
          const range = ranges[field];
          const value = form[field].trim() === '' ? null : Number(form[field]);
          const out = range && value !== null && Number.isFinite(value) && (value < range.min || value > range.max);
          const previous = last?.chemicalReadings?.[field];
          // What a test kit can show (the shared definition): the phone refuses anything else too.
          const bounds = ChemicalReadingShape.fields[field].meta.bounds;
          return (
            <div key={field} className={`reading${out ? ' out-of-range' : ''}`}>
              <Field label={`${label}${unit ? ` (${unit})` : ''}`}>
                <input type="number" inputMode="decimal" step={step} min={bounds?.min} max={bounds?.max} value={form[field]} onChange={set(field)} aria-invalid={out || undefined} />
              </Field>
              <span className="reading-help">
                {range && `${range.min}–${range.max}`}
                {out && ' · out of range'}
                {previous != null && ` · last ${previous}`}
              </span>
            </div>
          );
        })}
      </div>
      <WaterBalancePanel visit={visit} customer={customer} readings={typed} beforeBooking={() => (dirty ? store() : Promise.resolve(true))} />
      <ChoiceField label="Water condition" choices={WATER_CONDITIONS} value={form.waterCondition} onChange={set('waterCondition')} />
      <ChoiceField label="Water level" choices={WATER_LEVELS} value={form.waterLevel} onChange={set('waterLevel')} />
      <Field label="Notes">
        <textarea rows={3} value={form.notes} onChange={set('notes')} />
      </Field>
      <button type="submit" className="primary" disabled={save.busy}>
        Save
      </button>
      {saved && <span role="status">Saved on this phone.</span>}
      <Alert message={save.error} />
    </form>
  );
}

/** One of a few words the schema allows (or none), shown in lower case. */
function ChoiceField({ label, choices, value, onChange }: { label: string; choices: readonly string[]; value: string; onChange: (e: { target: { value: string } }) => void }) {
  return (
    <Field label={label}>
      <select value={value} onChange={onChange}>
        <option value="">—</option>
        {choices.map((c) => (
          <option key={c} value={c}>
            {c.toLowerCase()}
          </option>
        ))}
      </select>
    </Field>
  );
}
