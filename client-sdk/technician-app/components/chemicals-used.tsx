import { useState, type FormEvent } from 'react';
import { addedChemicals, type AddedChemical } from '../../../shared/index.js';
import { amountText } from '../../app-kit/chemistry.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useAction, useDocs, useSession } from '../../app-kit/hooks.js';
import { useLocations, type Visit } from '../data.js';

/**
 * Chemicals poured on this visit, booked as stock use from the technician's truck (a movement the
 * server applies once, lowering the truck's level), in whole units of the item. A dose booked from
 * a suggestion shows what was suggested; when less or more went in, a correction books the
 * difference (the ledger is never edited).
 */
export function ChemicalsUsed({ visit }: { visit: Visit }) {
  const { client } = useSession();
  const { truck } = useLocations();
  const items = useDocs('inventoryItems', { category: 'CHEMICAL', isActive: true }, []);
  const catalog = useDocs('inventoryItems', {}, []);
  const used = useDocs('stockMovements', { serviceId: visit.id }, [visit.id]);
  const [itemId, setItemId] = useState('');
  const [quantity, setQuantity] = useState('1');
  const record = useAction();
  const lines = addedChemicals(used ?? [], catalog ?? []);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!truck) return;
    const done = await record.run(() => client.useStock(itemId, truck.id, Number(quantity), visit.id));
    if (done) setQuantity('1');
  }
  return (
    <section className="card" aria-labelledby="chemicals-title">
      <h2 id="chemicals-title">Chemicals used</h2>
      {lines.length > 0 && (
        <ul className="used">
          {lines.map((line) => (
            <UsedLine key={line.movementId} line={line} />
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

/** One thing added; a dose can be corrected to what really went in. */
function UsedLine({ line }: { line: AddedChemical }) {
  const { client } = useSession();
  const [correcting, setCorrecting] = useState(false);
  const [really, setReally] = useState(String(line.quantity));
  const correct = useAction();
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (await correct.run(() => client.correctDose(line.movementId, Number(really)))) setCorrecting(false);
  }
  return (
    <li>
      <span>
        {line.quantity} {line.unit ?? ''} {line.itemName}
        {line.suggestedAmount != null && line.suggestedUnit && <span className="reading-help"> · suggested {amountText(line.suggestedAmount, line.suggestedUnit)}</span>}
      </span>
      {line.chemical && !correcting && (
        <button type="button" onClick={() => setCorrecting(true)} aria-label={`Correct ${line.itemName}`}>
          Correct
        </button>
      )}
      {correcting && (
        <form className="correct" onSubmit={submit}>
          <Field label={`Really used (${line.unit ?? 'units'})`}>
            <input type="number" inputMode="numeric" min="0" step="1" required value={really} onChange={(e) => setReally(e.target.value)} />
          </Field>
          <button type="submit" className="primary" disabled={correct.busy}>
            Save correction
          </button>
          <Alert message={correct.error} />
        </form>
      )}
    </li>
  );
}
