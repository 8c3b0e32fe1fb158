import type { Customer } from '../resources/customer.js';
import type { InventoryItem, StockMovement } from '../resources/inventory.js';
import type { Service } from '../resources/service.js';
import type { Chemical, DoseUnit, WaterBody } from './chemicals.js';
import { visitFormulaVersion, waterBalance } from './engine.js';
import { rangesOf, readingsOf, type ChemicalReading, type ReadingRange, type ReadingView, type WaterChemistrySettings } from './ranges.js';
import { chemistrySettingsOf, targetsFor, volumeOf, waterBodyOf } from './settings.js';
import type { WaterBalance } from './types.js';

type VisitWater = Pick<Service, 'chemicalReadings' | 'chemistryVersion'>;
type CustomerWater = Pick<Customer, 'pool' | 'bodiesOfWater'> | null | undefined;

/**
 * A visit's balance and suggested doses, computed with the formula version it was first balanced
 * with (a visit keeps its numbers after the engine moves on), from its customer's pool and the
 * organization's settings. What the server's `Service.waterBalance` answers and the apps show.
 */
export function visitBalance(visit: VisitWater, customer: CustomerWater, settings: WaterChemistrySettings): WaterBalance {
  return waterBalance(
    { readings: visit.chemicalReadings, volumeGallons: volumeOf(customer), body: waterBodyOf(customer), settings },
    visitFormulaVersion(visit),
  );
}

/** What was added on a visit: one line per dose (its corrections folded in) or other stock used. */
export interface AddedChemical {
  /** The movement that recorded it (a dose's first movement). */
  movementId: string;
  itemId: string;
  /** Where it was taken from (the dose's first movement's location). */
  locationId: string;
  itemName: string;
  /** The chemical, for a dose; null for stock used without one. */
  chemical: Chemical | null;
  /** The reading the dose was for (`ph`, ...); null for stock used without a dose. */
  reading: string | null;
  /** Units of the item used, corrections included. */
  quantity: number;
  unit: string | null;
  /** What the engine suggested, when the dose was booked from a suggestion. */
  suggestedAmount: number | null;
  suggestedUnit: DoseUnit | null;
  formulaVersion: number | null;
  /** The item's cost price times the quantity; null when the item has no cost price. */
  cost: number | null;
}

/** Everything a visit report shows of the water: readings marked against the targets, balance, doses suggested and added. */
export interface VisitChemistry {
  body: WaterBody;
  volumeGallons: number | null;
  readings: ReadingView[];
  /** The ranges the readings were marked against: the organization's for this kind of water. */
  ranges: Partial<Record<keyof ChemicalReading, ReadingRange>>;
  balance: WaterBalance;
  added: AddedChemical[];
}

/**
 * A visit's water chemistry in the form a report renders: pure, from records the caller has read
 * (the server's, or a replica's). `movements` are the visit's stock movements.
 *
 * @example visitChemistry({ visit, customer, organizationSettings: org.settings, movements, items })
 */
export function visitChemistry(input: {
  visit: VisitWater;
  customer: CustomerWater;
  organizationSettings: { waterChemistry?: WaterChemistrySettings | null } | null | undefined;
  movements: readonly MovementOnVisit[];
  items: readonly ItemUsed[];
}): VisitChemistry {
  const settings = chemistrySettingsOf(input.organizationSettings);
  const body = waterBodyOf(input.customer);
  const ranges = rangesOf(targetsFor(settings, body));
  return {
    body,
    volumeGallons: volumeOf(input.customer),
    readings: readingsOf(input.visit.chemicalReadings, ranges),
    ranges,
    balance: visitBalance(input.visit, input.customer, settings),
    added: addedChemicals(input.movements, input.items),
  };
}

type MovementOnVisit = Pick<StockMovement, 'id' | 'itemId' | 'locationId' | 'delta' | 'reason' | 'dose'>;
type ItemUsed = Pick<InventoryItem, 'id' | 'name' | 'unit' | 'costPrice'>;

/** What a visit's movements added, one line per dose with its corrections folded in (transfers are not use). */
export function addedChemicals(movements: readonly MovementOnVisit[], items: readonly ItemUsed[]): AddedChemical[] {
  const itemOf = new Map(items.map((i) => [i.id, i]));
  const ids = new Set(movements.map((m) => m.id));
  const lines = new Map<string, AddedChemical>();
  const used = movements.filter((m) => m.reason !== 'TRANSFER');
  // Originals first, then corrections fold into the line of the movement they correct.
  for (const m of used) {
    const corrects = m.dose?.correctsMovementId;
    if (corrects && ids.has(corrects)) continue;
    const item = itemOf.get(m.itemId);
    lines.set(m.id, {
      movementId: m.id,
      itemId: m.itemId,
      locationId: m.locationId,
      itemName: item?.name ?? 'Unknown item',
      chemical: m.dose?.chemical ?? null,
      reading: m.dose?.reading ?? null,
      quantity: -m.delta,
      unit: item?.unit ?? null,
      suggestedAmount: m.dose?.suggestedAmount ?? null,
      suggestedUnit: m.dose?.suggestedUnit ?? null,
      formulaVersion: m.dose?.formulaVersion ?? null,
      cost: null,
    });
  }
  for (const m of used) {
    const line = m.dose?.correctsMovementId ? lines.get(m.dose.correctsMovementId) : undefined;
    if (line) line.quantity -= m.delta;
  }
  for (const line of lines.values()) {
    const price = itemOf.get(line.itemId)?.costPrice;
    line.cost = price == null ? null : Math.round(line.quantity * price * 100) / 100;
  }
  return [...lines.values()];
}
