import { useState, type FormEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { customerName, money } from '../../app-kit/format.js';
import { useAction, useDoc, useDocs, useSession } from '../../app-kit/hooks.js';
import { href } from '../../app-kit/route.js';

/**
 * A quote made at the pool: lines from the item catalog (or typed), created on the phone as a
 * DRAFT the office sees once it syncs; the server numbers and prices it then.
 */
interface Line {
  itemId: string;
  description: string;
  quantity: string;
  unitPrice: string;
}

const emptyLine = (): Line => ({ itemId: '', description: '', quantity: '1', unitPrice: '' });

export function QuoteScreen({ customerId }: { customerId: string | null }) {
  const { client } = useSession();
  const customer = useDoc('customers', customerId);
  const items = useDocs('inventoryItems', { isActive: true }, []);
  const quotes = useDocs('quotes', customerId ? { customerId } : null, [customerId]);
  const [title, setTitle] = useState('');
  const [lines, setLines] = useState<Line[]>([emptyLine()]);
  const [created, setCreated] = useState<string | null>(null);
  const create = useAction();
  if (!customerId || customer === null) return <p className="empty">Open a quote from a customer or a visit.</p>;
  const setLine = (index: number, patch: Partial<Line>) => setLines(lines.map((l, i) => (i === index ? { ...l, ...patch } : l)));
  const pickItem = (index: number, itemId: string) => {
    const item = items?.find((i) => i.id === itemId);
    setLine(index, { itemId, description: item?.name ?? '', unitPrice: item ? String(item.unitPrice) : '' });
  };
  const total = lines.reduce((sum, l) => sum + (Number(l.quantity) || 0) * (Number(l.unitPrice) || 0), 0);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const lineItems = lines.filter((l) => l.description.trim()).map((l) => ({ description: l.description.trim(), quantity: Number(l.quantity), unitPrice: Number(l.unitPrice) }));
    const quote = await create.run(() => client.createQuote({ customerId: customerId!, title: title.trim(), lineItems }));
    if (quote) {
      setCreated(`Saved as a draft quote (${money(quote.total)} before tax); the office sees it once the phone syncs.`);
      setTitle('');
      setLines([emptyLine()]);
    }
  }
  return (
    <section aria-labelledby="quote-title">
      <h1 id="quote-title">Quote for {customer ? customerName(customer) : '…'}</h1>
      <form className="card" onSubmit={submit}>
        <Field label="Title">
          <input required value={title} onChange={(e) => setTitle(e.target.value)} placeholder="e.g. Replace pump lid O-ring" />
        </Field>
        {lines.map((line, i) => (
          <fieldset key={i} className="line">
            <legend>Line {i + 1}</legend>
            <Field label="From the catalog">
              <select value={line.itemId} onChange={(e) => pickItem(i, e.target.value)}>
                <option value="">Typed below</option>
                {(items ?? []).map((item) => (
                  <option key={item.id} value={item.id}>
                    {item.name} ({money(item.unitPrice)})
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Description">
              <input value={line.description} onChange={(e) => setLine(i, { description: e.target.value })} />
            </Field>
            <Field label="Quantity">
              <input type="number" inputMode="decimal" min="0.01" step="any" value={line.quantity} onChange={(e) => setLine(i, { quantity: e.target.value })} />
            </Field>
            <Field label="Unit price">
              <input type="number" inputMode="decimal" min="0" step="0.01" value={line.unitPrice} onChange={(e) => setLine(i, { unitPrice: e.target.value })} />
            </Field>
          </fieldset>
        ))}
        <button type="button" onClick={() => setLines([...lines, emptyLine()])}>
          Add a line
        </button>
        <p className="total">Total before tax: {money(total)}</p>
        <button type="submit" className="primary" disabled={create.busy || !title.trim()}>
          Save quote
        </button>
        {created && <p role="status">{created}</p>}
        <Alert message={create.error} />
      </form>
      {quotes && quotes.length > 0 && (
        <>
          <h2>This customer’s quotes</h2>
          <ul>
            {quotes.map((q) => (
              <li key={q.id}>
                {q.number || 'Not yet numbered'}: {q.title}, {q.status.toLowerCase()}, {money(q.total)}
              </li>
            ))}
          </ul>
        </>
      )}
      <p>
        <a href={href('customer', customerId)}>Back to the customer</a>
      </p>
    </section>
  );
}
