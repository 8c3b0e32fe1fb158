import { useState, type FormEvent } from 'react';
import { PAYMENT_METHODS, type PaymentMethod } from '../../../shared/index.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { money } from '../../app-kit/format.js';
import { useAction, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { calendarDay, currencyStep, today } from '../billing/format.js';
import { OfficeOpenInvoicesDocument, OfficeRecordPaymentDocument, type OfficeRecordPaymentMutation } from '../graphql/operations.generated.js';

/**
 * A payment's form. The payment's id is made here, once per payment: a submission retried after a
 * lost answer is the same payment, recorded once. The invoices ticked are paid first, in their
 * order; none ticked, the server pays the oldest open ones first; what is left over is credit.
 */
const METHOD_LABELS: Record<PaymentMethod, string> = { CASH: 'Cash', CHECK: 'Check', CARD: 'Card', ACH: 'Bank transfer (ACH)', OTHER: 'Other' };
type Recorded = OfficeRecordPaymentMutation['recordPayment'];

export function PaymentForm({ customerId, currency, onRecorded }: { customerId: string; currency: string; onRecorded: () => void }) {
  const { api } = useSession();
  const open = useGraphQL(OfficeOpenInvoicesDocument, { customerId }, [customerId]);
  const [paymentId, setPaymentId] = useState(() => crypto.randomUUID());
  const [form, setForm] = useState({ amount: '', method: 'CHECK' as PaymentMethod, reference: '', receivedOn: today() });
  const [invoiceIds, setInvoiceIds] = useState<string[]>([]);
  const [recorded, setRecorded] = useState<Recorded | null>(null);
  const record = useAction();
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const invoices = open.data?.infiniteInvoices.edges.map((e) => e.node) ?? [];
  const toggle = (id: string) => setInvoiceIds((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setRecorded(null);
    const input = {
      id: paymentId,
      customerId,
      amount: Number(form.amount),
      currency,
      method: form.method,
      reference: form.reference.trim() || null,
      receivedAt: receivedAt(form.receivedOn),
      invoiceIds: invoiceIds.length ? invoiceIds : null,
    };
    const answer = await record.run(() => api.graphql(OfficeRecordPaymentDocument, { input }));
    if (!answer) return;
    setRecorded(answer.recordPayment);
    setPaymentId(crypto.randomUUID());
    setForm({ ...form, amount: '', reference: '' });
    setInvoiceIds([]);
    open.reload();
    onRecorded();
  }

  return (
    <form className="card-form wide" onSubmit={submit} aria-labelledby="payment-form-title">
      <h2 id="payment-form-title">The payment</h2>
      <Field label={`Amount (${currency})`}>
        <input type="number" required min={currencyStep(currency)} step={currencyStep(currency)} value={form.amount} onChange={set('amount')} />
      </Field>
      <Field label="Method">
        <select value={form.method} onChange={set('method')}>
          {PAYMENT_METHODS.map((m) => (
            <option key={m} value={m}>
              {METHOD_LABELS[m]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Reference (check number, receipt…)">
        <input value={form.reference} onChange={set('reference')} maxLength={200} />
      </Field>
      <Field label="Received on">
        <input type="date" required value={form.receivedOn} max={today()} onChange={set('receivedOn')} />
      </Field>
      <fieldset>
        <legend>Pay these invoices first (none ticked: the oldest open ones)</legend>
        {open.error && <p className="error">{open.error}</p>}
        {invoices.length === 0 && !open.loading && <p>No open invoices: the payment becomes credit for the next one.</p>}
        {invoices.map((i) => (
          <label key={i.id} className="check">
            <input type="checkbox" checked={invoiceIds.includes(i.id)} onChange={() => toggle(i.id)} />
            {i.number}, due {calendarDay(i.dueDate)}: {money(i.balanceDue, i.currency)} owed
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={record.busy}>
        Record the payment
      </button>
      <Alert message={record.error} />
      {recorded && <RecordedPayment payment={recorded} currency={currency} />}
    </form>
  );
}

/** What the server did with the payment: each invoice it paid, and what is left as credit. */
function RecordedPayment({ payment, currency }: { payment: Recorded; currency: string }) {
  const applied = payment.applications.map((a) => `${money(a.amount, currency)} to ${a.invoice.number}`);
  return (
    <p role="status" data-testid="payment-recorded">
      Recorded {money(payment.amount, currency)}
      {applied.length ? `: ${applied.join(', ')}` : ''}
      {payment.unapplied > 0 ? `; ${money(payment.unapplied, currency)} kept as credit` : ''}.
    </p>
  );
}

/** Today's payment at this moment; an earlier day's at its noon (the day is what the office knows). */
function receivedAt(day: string): string {
  if (day === today()) return new Date().toISOString();
  return new Date(`${day}T12:00:00`).toISOString();
}
