import { useMemo } from 'react';
import { addedChemicals, rangesOf, readingsOf, targetsFor, toItemUnits, visitFormulaVersion, volumeOf, waterBalance, waterBodyOf, type ChemicalReading, type Customer, type Dose } from '../../../shared/index.js';
import { chemicalLabel, itemForChemical, useChemistrySettings } from '../../app-kit/chemistry.js';
import { Alert } from '../../app-kit/components/alert.js';
import { BalanceSummary, DoseList } from '../../app-kit/components/water-balance.js';
import { useAction, useDocs, useSession } from '../../app-kit/hooks.js';
import { useLocations, type Visit } from '../data.js';

/**
 * The water's balance and what to add, as the readings are typed, with no signal: the shared
 * engine on the phone's replica (the organization's targets and products, the customer's pool),
 * with the formula version the visit keeps. A suggested dose is booked from the truck in one tap,
 * converted to the item's unit and rounded (the rounding said beside the button).
 */
export function WaterBalancePanel({ visit, customer, readings, beforeBooking }: {
  visit: Visit;
  customer: Customer | null | undefined;
  readings: Partial<ChemicalReading>;
  /** Saves the readings as typed before a dose is booked on them; false: they cannot be saved. */
  beforeBooking: () => Promise<boolean>;
}) {
  const settings = useChemistrySettings();
  const balance = useMemo(
    () => waterBalance({ readings, volumeGallons: volumeOf(customer), body: waterBodyOf(customer), settings }, visitFormulaVersion(visit)),
    [readings, customer, settings, visit],
  );
  const allInRange = readingsOf(readings, rangesOf(targetsFor(settings, waterBodyOf(customer)))).every((r) => !r.outOfRange);
  return (
    <section className="balance-panel" aria-labelledby="balance-title" data-testid="water-balance">
      <h3 id="balance-title">Water balance</h3>
      <BalanceSummary balance={balance} />
      <DoseList balance={balance} allInRange={allInRange} action={(dose) => <BookDose visit={visit} dose={dose} formulaVersion={balance.formulaVersion} beforeBooking={beforeBooking} />} />
    </section>
  );
}

function BookDose({ visit, dose, formulaVersion, beforeBooking }: { visit: Visit; dose: Dose; formulaVersion: number; beforeBooking: () => Promise<boolean> }) {
  const { client } = useSession();
  const { truck } = useLocations();
  const settings = useChemistrySettings();
  const items = useDocs('inventoryItems', { isActive: true }, []);
  const booked = useDocs('stockMovements', { serviceId: visit.id }, [visit.id]);
  const action = useAction();
  // A drain is not stock; a dose the cap held back entirely is for the next visit.
  if (dose.chemical === 'DRAIN' || !(dose.amount > 0)) return null;
  const item = itemForChemical(settings, dose.chemical, items ?? []);
  if (!truck) return <p className="reading-help">No truck is assigned to you, so doses cannot be booked.</p>;
  if (!item) return <p className="reading-help">No catalog item for {chemicalLabel(dose.chemical).toLowerCase()}: the office names one under Settings, Water chemistry.</p>;
  // What is booked for this dose, its corrections folded in (a dose corrected to 8 fl oz says 8).
  const already = addedChemicals(booked ?? [], items ?? []).find((line) => line.chemical === dose.chemical && line.reading === dose.reading);
  if (already) return <span className="booked">Booked: {already.quantity} {item.unit ?? ''} of {item.name}</span>;
  const quantity = toItemUnits(dose.amount, dose.unit, item.unit);
  if (quantity.quantity == null) return <p className="reading-help">{item.name}: {quantity.note}</p>;
  const book = () =>
    action.run(async () => {
      if (!(await beforeBooking())) return;
      await client.recordDose({
        visitId: visit.id,
        itemId: item.id,
        locationId: truck.id,
        quantity: quantity.quantity!,
        chemical: dose.chemical,
        suggestion: { reading: dose.reading, amount: dose.amount, unit: dose.unit, strengthPercent: dose.strengthPercent, formulaVersion },
      });
    });
  return (
    <div className="book">
      <button type="button" className="primary" disabled={action.busy} onClick={() => void book()}>
        Add {quantity.quantity} {item.unit ?? ''} from {truck.name}
      </button>
      {quantity.note && <span className="reading-help">{quantity.note}</span>}
      <Alert message={action.error} />
    </div>
  );
}
