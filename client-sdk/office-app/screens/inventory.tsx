import { Loading } from '../../app-kit/components/loading.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useMemo, useState, type FormEvent } from 'react';
import type { InventoryItem, InventoryLocation } from '../../../shared/index.js';
import { dateTime, money } from '../../app-kit/format.js';
import { OfficeTransferDocument } from '../graphql/operations.generated.js';
import { useAction, useDocs, useSession } from '../../app-kit/hooks.js';

/**
 * Inventory: levels per location (low and negative stock flagged), an item's movement history,
 * and transfers between locations (through the server, which refuses a source holding too little).
 */
export function InventoryScreen() {
  const items = useDocs('inventoryItems', {}, []);
  const locations = useDocs('inventoryLocations', {}, []);
  const levels = useDocs('stockLevels', {}, []);
  const [selected, setSelected] = useState<string | null>(null);
  const sortedItems = useMemo(() => [...(items ?? [])].sort((a, b) => a.name.localeCompare(b.name)), [items]);
  const sortedLocations = useMemo(() => [...(locations ?? [])].sort((a, b) => a.name.localeCompare(b.name)), [locations]);
  const level = (itemId: string, locationId: string) => levels?.find((l) => l.itemId === itemId && l.locationId === locationId)?.quantity ?? 0;
  // A level not yet read would show as 0: nothing is shown until all three are.
  if (!items || !locations || !levels) return <Loading title="Inventory" />;
  return (
    <section aria-labelledby="inventory-title">
      <h1 id="inventory-title">Inventory</h1>
      <div className="grid-scroll">
        <table className="list inventory">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Total</th>
              {sortedLocations.map((l) => (
                <th scope="col" key={l.id}>
                  {l.name}
                </th>
              ))}
              <th scope="col">Reorder at</th>
              <th scope="col">Price</th>
            </tr>
          </thead>
          <tbody>
            {sortedItems.map((item) => {
              const low = item.reorderPoint != null && item.quantity <= item.reorderPoint;
              return (
                <tr key={item.id} className={low ? 'low' : undefined} data-item={item.name}>
                  <th scope="row">
                    <button type="button" className="link" aria-expanded={selected === item.id} onClick={() => setSelected(selected === item.id ? null : item.id)}>
                      {item.name}
                    </button>{' '}
                    {low && <span className="badge warn">low stock</span>}
                  </th>
                  <td className="number">
                    {item.quantity} {item.unit}
                  </td>
                  {sortedLocations.map((l) => {
                    const q = level(item.id, l.id);
                    return (
                      <td key={l.id} className={q < 0 ? 'number negative' : 'number'} data-location={l.name}>
                        {q}
                        {q < 0 && <span className="badge danger">negative</span>}
                      </td>
                    );
                  })}
                  <td className="number">{item.reorderPoint ?? '—'}</td>
                  <td className="number">{money(item.unitPrice)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {selected && <History item={sortedItems.find((i) => i.id === selected)!} locations={sortedLocations} />}
      <Transfer items={sortedItems} locations={sortedLocations} />
    </section>
  );
}

function History({ item, locations }: { item: InventoryItem; locations: InventoryLocation[] }) {
  const movements = useDocs('stockMovements', { itemId: item.id }, [item.id]);
  const sorted = [...(movements ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const name = (id: string | null) => locations.find((l) => l.id === id)?.name ?? '';
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Movements of {item.name}</h2>
      <table className="list">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Where</th>
            <th scope="col">Change</th>
            <th scope="col">Note</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((m) => (
            <tr key={m.id}>
              <td>{dateTime(m.createdAt)}</td>
              <td>{m.reason.toLowerCase()}</td>
              <td>{m.toLocationId ? `${name(m.locationId)} → ${name(m.toLocationId)}` : name(m.locationId)}</td>
              <td className="number">{m.delta > 0 ? `+${m.delta}` : m.delta}</td>
              <td>{m.note}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Transfer({ items, locations }: { items: InventoryItem[]; locations: InventoryLocation[] }) {
  const { api } = useSession();
  const [form, setForm] = useState({ itemId: '', fromLocationId: '', toLocationId: '', quantity: '1' });
  const [done, setDone] = useState<string | null>(null);
  const transfer = useAction();
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const result = await transfer.run(() => api.graphql(OfficeTransferDocument, { input: { ...form, quantity: Number(form.quantity) } }));
    if (result) setDone(`Moved ${form.quantity} × ${items.find((i) => i.id === form.itemId)?.name}.`);
  }
  const options = (list: { id: string; name: string }[]) =>
    list.map((x) => (
      <option key={x.id} value={x.id}>
        {x.name}
      </option>
    ));
  return (
    <form className="card-form wide" onSubmit={submit} aria-labelledby="transfer-title">
      <h2 id="transfer-title">Transfer stock</h2>
      <Field label="Item">
        <select required value={form.itemId} onChange={set('itemId')}>
          <option value="">Choose…</option>
          {options(items)}
        </select>
      </Field>
      <Field label="From">
        <select required value={form.fromLocationId} onChange={set('fromLocationId')}>
          <option value="">Choose…</option>
          {options(locations)}
        </select>
      </Field>
      <Field label="To">
        <select required value={form.toLocationId} onChange={set('toLocationId')}>
          <option value="">Choose…</option>
          {options(locations)}
        </select>
      </Field>
      <Field label="Quantity">
        <input type="number" min="1" step="1" required value={form.quantity} onChange={set('quantity')} />
      </Field>
      <button type="submit" disabled={transfer.busy}>
        Transfer
      </button>
      {done && <p role="status">{done}</p>}
      <Alert message={transfer.error} />
    </form>
  );
}
