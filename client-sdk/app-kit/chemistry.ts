import { useMemo } from 'react';
import {
  CHEMICAL_INFO,
  chemistrySettingsOf,
  DOSE_UNIT_LABELS,
  productFor,
  rangesOf,
  READING_LABELS,
  targetsFor,
  waterBodyOf,
  type Chemical,
  type Customer,
  type Dose,
  type DoseUnit,
  type InventoryItem,
  type WaterChemistrySettings,
} from '../../shared/index.js';
import { useDocs } from './hooks.js';

/**
 * Water chemistry as both apps show it: the organization's settings from the replica (so the
 * engine runs with no signal), and the words and numbers a person reads.
 */
export function useChemistrySettings(): WaterChemistrySettings {
  const organizations = useDocs('organization', {}, []);
  const settings = organizations?.[0]?.settings;
  return useMemo(() => chemistrySettingsOf(settings), [settings]);
}

/** The ranges a customer's readings are marked against: the organization's for the kind of water they have. */
export function useRangesFor(customer: Pick<Customer, 'pool' | 'bodiesOfWater'> | null | undefined) {
  const settings = useChemistrySettings();
  return useMemo(() => rangesOf(targetsFor(settings, waterBodyOf(customer))), [settings, customer]);
}

export { BAND_WORDS } from '../../shared/index.js';

/** An amount as a person measures it: gallons to two places, everything else to one. */
export function amountText(amount: number, unit: DoseUnit): string {
  const places = unit === 'GALLON' ? 2 : unit === 'PERCENT' ? 0 : 1;
  return `${Number(amount.toFixed(places))} ${DOSE_UNIT_LABELS[unit]}`;
}

export const chemicalLabel = (chemical: Chemical) => CHEMICAL_INFO[chemical].label;

export function readingLabel(reading: string): string {
  return READING_LABELS[reading as keyof typeof READING_LABELS]?.label ?? reading;
}

/** A reading as shown: pH to two places, ppm whole when large. */
export const readingValue = (value: number) => String(Number(value.toFixed(value >= 100 ? 0 : 2)));

/** What a dose does, in words: "pH 8 → 7.5", with a drain's share. */
export function doseLine(dose: Dose): string {
  const what = dose.chemical === 'DRAIN' ? `Drain ${amountText(dose.amount, dose.unit)} and refill` : `${amountText(dose.amount, dose.unit)} ${chemicalLabel(dose.chemical).toLowerCase()}`;
  return `${what}: ${readingLabel(dose.reading)} ${readingValue(dose.from)} → ${readingValue(dose.to)}`;
}

/**
 * The catalog item a dose of the chemical is booked from: the one the organization named in its
 * settings, else the only active chemical item whose name says what it is (a truck's "Muriatic
 * acid 31.45%"); null when neither tells.
 */
export function itemForChemical(settings: WaterChemistrySettings, chemical: Chemical, items: readonly InventoryItem[]): InventoryItem | null {
  const named = productFor(settings, chemical)?.itemId;
  if (named) return items.find((i) => i.id === named) ?? null;
  const words = chemicalLabel(chemical).toLowerCase();
  const matching = items.filter((i) => i.isActive && i.category === 'CHEMICAL' && i.name.toLowerCase().includes(words));
  return matching.length === 1 ? matching[0]! : null;
}
