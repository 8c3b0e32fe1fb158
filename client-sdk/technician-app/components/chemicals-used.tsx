import { useState, type FormEvent } from 'react';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useAction, useDocs, useSession } from '../../app-kit/hooks.js';
import { useLocations, type Visit } from '../data.js';

/**
 * Chemicals poured on this visit, booked as stock use from the technician's truck (a movement the
 * server applies once, lowering the truck's level), in whole units of the item.
 */
export function ChemicalsUsed({ visit }: { visit: Visit }) {
  const { client } = useSession();
  const { truck } = useLocations();
  const items = useDocs('inventoryItems', { category: 'CHEMICAL', isActive: true }, []);
  const used = useDocs('stockMovements', { serviceId: visit.id }, [visit.id]);
  const [itemId, setItemId] = useState('');
  const [quantity, setQuantity] = useState('1');
  const record = useAction();
  const names = new Map((items ?? []).map((i) => [i.id, i]));
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!truck) return;
    const done = await record.run(() => client.useStock(itemId, truck.id, Number(quantity), visit.id));
    if (done) setQuantity('1');
  }
  return (
    <section className="card" aria-labelledby="chemicals-title">
      <h2 id="chemicals-title">Chemicals used</h2>
      {used && used.length > 0 && (
        <ul className="used">
          {used.map((m) => (
            <li key={m.id}>
              {-m.delta} {names.get(m.itemId)?.unit ?? ''} {names.get(m.itemId)?.name ?? 'item'}
            </li>
          ))}
        </ul>
      )}
      {!truck ? (
        <p className="empty">No truck is assigned to you, so stock use cannot be booked. Ask the office.</p>
      ) : (
        <form onSubmit={submit}>
          <Field label="Chemical">
            <select required value={itemId} onChange={(e) => setItemId(e.target.value)}>
              <option value="">Choose…</option>
              {(items ?? []).map((i) => (
                <option key={i.id} value={i.id}>
                  {i.name}
                  {i.unit ? ` (${i.unit})` : ''}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Quantity">
            <input type="number" inputMode="numeric" min="1" step="1" required value={quantity} onChange={(e) => setQuantity(e.target.value)} />
          </Field>
          <button type="submit" className="primary" disabled={record.busy || !itemId}>
            Book from {truck.name}
          </button>
          <Alert message={record.error} />
        </form>
      )}
    </section>
  );
}
