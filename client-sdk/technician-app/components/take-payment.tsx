import { useState, type FormEvent } from 'react';
import { exponentOf } from '../../../shared/index.js';
import type { BalanceDue } from '../../actions/payments.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { dateTime, day, money } from '../../app-kit/format.js';
import { useAction, useDocs, useObservable, useSession } from '../../app-kit/hooks.js';

/**
 * What a customer owes, and taking cash or a check at the door, with or without signal. The
 * balance is the phone's: the open invoices as last synced, less what was taken here and has not
 * reached the server yet (client.balanceDue$); a payment taken shows as waiting until the server
 * has it, then as synced, and the invoices' new balances follow.
 */
export function CustomerBalance({ customerId }: { customerId: string }) {
  const { client } = useSession();
  const balance = useObservable(() => client.balanceDue$(customerId), null as BalanceDue | null, [client, customerId]);
  const payments = useDocs('payments', { customerId }, [customerId]);
  if (!balance) return null;
  const currency = balance.currency ?? 'USD';
  const waiting = new Set(balance.pending.map((p) => p.id));
  const recent = [...(payments ?? [])].sort((a, b) => b.receivedAt.localeCompare(a.receivedAt)).slice(0, 5);
  return (
    <section className="card owed" aria-labelledby="balance-title" data-testid="balance">
      <h2 id="balance-title">Balance due</h2>
      <p className="amount" data-testid="balance-due">
        {money(Math.max(balance.due, 0), currency)}
        {balance.due < 0 && <span> ({money(-balance.due, currency)} more taken than owed: kept as credit)</span>}
      </p>
      {balance.takenSince > 0 && (
        <p className="pending-note">
          {money(balance.synced, currency)} as last synced, less {money(balance.takenSince, currency)} taken on this phone and not yet synced.
        </p>
      )}
      {balance.invoices.length === 0 ? (
        <p className="empty">No open invoices on this phone.</p>
      ) : (
        <ul className="invoices">
          {balance.invoices.map((i) => (
            <li key={i.id}>
              Invoice {i.number}, due {day(i.dueDate ? `${i.dueDate}T12:00:00` : null)}: {money(i.balanceDue, currency)}
              {i.amountPaid > 0 ? ` of ${money(i.total, currency)}` : ''}
            </li>
          ))}
        </ul>
      )}
      <TakePayment customerId={customerId} currency={currency} />
      {recent.length > 0 && (
        <>
          <h3>Payments</h3>
          <ul className="payments" data-testid="payments">
            {recent.map((p) => (
              <li key={p.id} className={waiting.has(p.id) ? 'waiting' : 'synced'}>
                {money(p.amount, currency)} {p.method === 'CHECK' ? `check${p.reference ? ` #${p.reference}` : ''}` : p.method.toLowerCase()}, {dateTime(p.receivedAt)}:{' '}
                <strong>{waiting.has(p.id) ? 'waiting to sync' : 'synced'}</strong>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function TakePayment({ customerId, currency }: { customerId: string; currency: string }) {
  const { client } = useSession();
  const [form, setForm] = useState({ method: 'CASH' as 'CASH' | 'CHECK', amount: '', reference: '' });
  const [done, setDone] = useState<string | null>(null);
  const take = useAction();
  const step = 10 ** -exponentOf(currency);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const amount = Number(form.amount);
    const taken = await take.run(() => client.takePayment({ customerId, amount, method: form.method, reference: form.method === 'CHECK' ? form.reference : null }));
    if (!taken) return;
    setForm({ method: form.method, amount: '', reference: '' });
    setDone(`Took ${money(taken.amount, currency)} ${form.method === 'CHECK' ? 'by check' : 'in cash'}. Saved on this phone; it syncs when there is signal.`);
  }
  return (
    <form className="take-payment" onSubmit={submit} aria-labelledby="take-payment-title">
      <h3 id="take-payment-title">Take payment</h3>
      <Field label="Method">
        <select value={form.method} onChange={(e) => setForm({ ...form, method: e.target.value as 'CASH' | 'CHECK' })}>
          <option value="CASH">Cash</option>
          <option value="CHECK">Check</option>
        </select>
      </Field>
      <Field label={`Amount (${currency})`}>
        <input type="number" inputMode="decimal" min={step} step={step} required value={form.amount} onChange={(e) => setForm({ ...form, amount: e.target.value })} />
      </Field>
      {form.method === 'CHECK' && (
        <Field label="Check number">
          <input type="text" inputMode="numeric" required maxLength={200} value={form.reference} onChange={(e) => setForm({ ...form, reference: e.target.value })} />
        </Field>
      )}
      <button type="submit" className="primary" disabled={take.busy || !form.amount}>
        Take payment
      </button>
      {done && <p role="status">{done}</p>}
      <Alert message={take.error} />
    </form>
  );
}
