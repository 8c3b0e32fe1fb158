import { VISIT_INVOICED, VISIT_NO_CHARGE } from '../../../shared/index.js';
import { Field } from '../../app-kit/components/field.js';

/**
 * A visit's billing status as the office may write it. INVOICED is billing's alone (set when an
 * invoice holding the visit is finalized, taken back when it is voided; the server refuses it
 * written by hand), so it is never offered, and a visit that is INVOICED shows it unchangeable.
 */
const WRITABLE = ['', 'NOT_BILLED', 'READY', VISIT_NO_CHARGE];

export function BillingStatusField({ value, onChange }: { value: string; onChange: (e: { target: { value: string } }) => void }) {
  const invoiced = value === VISIT_INVOICED;
  return (
    <>
      <Field label="Billing status">
        <select value={value} onChange={onChange} disabled={invoiced}>
          {(invoiced ? [VISIT_INVOICED] : WRITABLE).map((s) => (
            <option key={s} value={s}>
              {s || '—'}
            </option>
          ))}
        </select>
      </Field>
      {invoiced && <p className="hint">On a finalized invoice: billing keeps this; void the invoice to bill the visit again.</p>}
    </>
  );
}
