import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useMemo, useState, type FormEvent } from 'react';
import { QUOTE_STATUSES, type Quote } from '../../../shared/index.js';
import { CustomerPicker, type PickedCustomer } from '../components/customer-picker.js';
import { OfficeCreateQuoteDocument, OfficeTaxesDocument } from '../graphql/operations.generated.js';
import { customerName, day, money } from '../../app-kit/format.js';
import { useAction, useDocs, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { href, navigate } from '../../app-kit/route.js';

/**
 * Quotes: the list (from the replica, live) with status filters, and a new quote with lines and
 * tax. Creating goes through the server, which numbers and prices it.
 */
export function QuotesScreen() {
  const [status, setStatus] = useState<Quote['status'] | ''>('');
  const quotes = useDocs('quotes', status ? { status } : {}, [status]);
  const sorted = useMemo(() => [...(quotes ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt)), [quotes]);
  const customerIds = [...new Set(sorted.map((q) => q.customerId))].sort();
  const customers = useDocs('customers', { id: { $in: customerIds } }, [customerIds.join()]);
  const names = new Map((customers ?? []).map((c) => [c.id, customerName(c)]));
  return (
    <section aria-labelledby="quotes-title">
      <h1 id="quotes-title">Quotes</h1>
      <div role="group" aria-label="Filter by status" className="filters">
        {(['', ...QUOTE_STATUSES] as const).map((s) => (
          <button key={s} type="button" aria-pressed={status === s} onClick={() => setStatus(s)}>
            {s ? s.toLowerCase() : 'all'}
          </button>
        ))}
      </div>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Title</th>
            <th scope="col">Customer</th>
            <th scope="col">Status</th>
            <th scope="col">Total</th>
            <th scope="col">Valid until</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((q) => (
            <tr key={q.id}>
              <td>
                <a href={href('quote', q.id)}>{q.number || 'not numbered yet'}</a>
              </td>
              <td>{q.title}</td>
              <td>{names.get(q.customerId) ?? ''}</td>
              <td>
                <span className={`badge quote-${q.status.toLowerCase()}`}>{q.status}</span>
              </td>
              <td className="number">{money(q.total)}</td>
              <td>{day(q.validUntil)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <NewQuote />
    </section>
  );
}

interface Line {
  description: string;
  quantity: string;
  unitPrice: string;
}

function NewQuote() {
  const { api } = useSession();
  const taxes = useGraphQL(OfficeTaxesDocument, undefined, []);
  const [customer, setCustomer] = useState<PickedCustomer | null>(null);
  const [title, setTitle] = useState('');
  const [taxId, setTaxId] = useState('');
  const [validUntil, setValidUntil] = useState('');
  const [lines, setLines] = useState<Line[]>([{ description: '', quantity: '1', unitPrice: '' }]);
  const create = useAction();
  const setLine = (index: number, field: keyof Line, value: string) => setLines(lines.map((l, i) => (i === index ? { ...l, [field]: value } : l)));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!customer) return create.setError('Choose a customer first.');
    const input = {
      customerId: customer.id,
      title,
      taxId: taxId || null,
      validUntil: validUntil ? new Date(`${validUntil}T23:59:59`).toISOString() : null,
      lineItems: lines.filter((l) => l.description.trim()).map((l) => ({ description: l.description, quantity: Number(l.quantity), unitPrice: Number(l.unitPrice) })),
    };
    const created = await create.run(() => api.graphql(OfficeCreateQuoteDocument, { input }));
    if (created) navigate('quote', created.createQuote.id);
  }

  return (
    <form className="card-form wide" onSubmit={submit} aria-labelledby="new-quote-title">
      <h2 id="new-quote-title">New quote</h2>
      <CustomerPicker value={customer} onChange={setCustomer} />
      <Field label="Title">
        <input required value={title} onChange={(e) => setTitle(e.target.value)} maxLength={500} />
      </Field>
      <fieldset>
        <legend>Lines</legend>
        {lines.map((line, i) => (
          <div className="line" key={i}>
            <Field label="Description">
              <input value={line.description} onChange={(e) => setLine(i, 'description', e.target.value)} />
            </Field>
            <Field label="Quantity">
              <input type="number" step="any" min="0" value={line.quantity} onChange={(e) => setLine(i, 'quantity', e.target.value)} />
            </Field>
            <Field label="Unit price">
              <input type="number" step="0.01" value={line.unitPrice} onChange={(e) => setLine(i, 'unitPrice', e.target.value)} />
            </Field>
          </div>
        ))}
        <button type="button" onClick={() => setLines([...lines, { description: '', quantity: '1', unitPrice: '' }])}>
          Add a line
        </button>
      </fieldset>
      <Field label="Tax">
        <select value={taxId} onChange={(e) => setTaxId(e.target.value)}>
          <option value="">The organization's default tax</option>
          {taxes.data?.taxes.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} ({t.rate}%)
            </option>
          ))}
        </select>
      </Field>
      <Field label="Valid until">
        <input type="date" value={validUntil} onChange={(e) => setValidUntil(e.target.value)} />
      </Field>
      <p className="hint">The server numbers the quote and computes line amounts, tax and total.</p>
      <button type="submit" disabled={create.busy}>
        Create quote
      </button>
      <Alert message={create.error} />
    </form>
  );
}
