import { useMemo, useState, type FormEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useAction, useDocs, useSession } from '../../app-kit/hooks.js';
import { useLocations } from '../data.js';

/** What is on the truck, and taking more from the warehouse (a transfer the server applies once). */
export function TruckScreen() {
  const { client } = useSession();
  const { truck, warehouses, loaded } = useLocations();
  const items = useDocs('inventoryItems', { isActive: true }, []);
  const levels = useDocs('stockLevels', truck ? { locationId: truck.id } : null, [truck?.id]);
  const [form, setForm] = useState({ itemId: '', from: '', quantity: '1' });
  const [done, setDone] = useState<string | null>(null);
  const transfer = useAction();
  const byId = useMemo(() => new Map((items ?? []).map((i) => [i.id, i])), [items]);
  if (!loaded) return <p className="loading">Loading…</p>;
  if (!truck) return <p className="empty">No truck is assigned to you. The office assigns one under Inventory.</p>;
  const rows = (levels ?? []).filter((l) => byId.has(l.itemId)).sort((a, b) => byId.get(a.itemId)!.name.localeCompare(byId.get(b.itemId)!.name));
  const from = form.from || warehouses[0]?.id || '';
  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const moved = await transfer.run(() => client.transferStock(form.itemId, from, truck!.id, Number(form.quantity)));
    if (moved) setDone(`Took ${form.quantity} × ${byId.get(form.itemId)?.name}. The truck's count follows once the server has it.`);
  }
  return (
    <section aria-labelledby="truck-title">
      <h1 id="truck-title">{truck.name}</h1>
      {rows.length === 0 ? (
        <p className="empty">Nothing on the truck yet.</p>
      ) : (
        <table className="levels">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">On the truck</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((l) => (
              <tr key={l.id} className={l.quantity < 0 ? 'negative' : undefined}>
                <td>{byId.get(l.itemId)!.name}</td>
                <td>
                  {l.quantity} {byId.get(l.itemId)!.unit ?? ''}
                  {l.quantity < 0 && <strong> · below zero: more was used than the truck held</strong>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="card" onSubmit={submit} aria-labelledby="transfer-title">
        <h2 id="transfer-title">Take from the warehouse</h2>
        {warehouses.length > 1 && (
          <Field label="From">
            <select value={from} onChange={(e) => setForm({ ...form, from: e.target.value })}>
              {warehouses.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field label="Item">
          <select required value={form.itemId} onChange={(e) => setForm({ ...form, itemId: e.target.value })}>
            <option value="">Choose…</option>
            {(items ?? []).map((i) => (
              <option key={i.id} value={i.id}>
                {i.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Quantity">
          <input type="number" inputMode="numeric" min="1" step="1" required value={form.quantity} onChange={(e) => setForm({ ...form, quantity: e.target.value })} />
        </Field>
        <button type="submit" className="primary" disabled={transfer.busy || !from || !form.itemId}>
          Take to {truck.name}
        </button>
        {done && <p role="status">{done}</p>}
        <Alert message={transfer.error} />
      </form>
    </section>
  );
}
