import type { DoseUnit, Measure } from './chemicals.js';

/**
 * Units: a suggestion's (fl oz, gallons, oz, lb, percent) and an inventory item's (free text, as
 * the office typed it: "fl oz", "gal", "lbs", "bucket"). Stock moves in whole units of the item
 * (the spec's `quantity: Int!`), so a suggestion is converted to the item's unit and rounded, and
 * the rounding is said.
 */

/** Each unit in fluid ounces (volume) or ounces (weight): 1 US gallon = 128 fl oz, 1 lb = 16 oz. */
const VOLUME_FL_OZ: Record<string, number> = { floz: 1, gallon: 128, quart: 32, pint: 16, cup: 8, liter: 33.814022, milliliter: 0.033814022 };
const WEIGHT_OZ: Record<string, number> = { oz: 1, lb: 16, kg: 35.273962, gram: 0.035273962 };

const SPELLINGS: Record<string, string> = {
  floz: 'floz', fluidounce: 'floz', fluidoz: 'floz', gal: 'gallon', gallon: 'gallon', qt: 'quart', quart: 'quart', pt: 'pint', pint: 'pint', cup: 'cup',
  l: 'liter', liter: 'liter', litre: 'liter', ml: 'milliliter', milliliter: 'milliliter', millilitre: 'milliliter',
  oz: 'oz', ounce: 'oz', lb: 'lb', pound: 'lb', kg: 'kg', kilogram: 'kg', g: 'gram', gram: 'gram',
};

export const DOSE_UNIT_LABELS: Readonly<Record<DoseUnit, string>> = { FL_OZ: 'fl oz', GALLON: 'gal', OZ: 'oz', LB: 'lb', PERCENT: '%' };

/** A dose unit in its measure's base unit (fl oz or oz); PERCENT is its own. */
export function inBaseUnits(amount: number, unit: DoseUnit): number {
  return unit === 'GALLON' ? amount * 128 : unit === 'LB' ? amount * 16 : amount;
}

export function measureOfUnit(unit: DoseUnit): Measure {
  return unit === 'FL_OZ' || unit === 'GALLON' ? 'volume' : unit === 'PERCENT' ? 'share' : 'weight';
}

/**
 * How an amount in base units is shown: liquids in fl oz up to a gallon, then gallons; dry
 * chemicals in oz up to 2 lb, then lb (salt always in lb, it comes in 40 lb bags); a drain in percent.
 */
export function displayUnit(measure: Measure, baseAmount: number, alwaysPounds = false): DoseUnit {
  if (measure === 'share') return 'PERCENT';
  if (measure === 'volume') return baseAmount >= 128 ? 'GALLON' : 'FL_OZ';
  return alwaysPounds || baseAmount >= 32 ? 'LB' : 'OZ';
}

export function fromBaseUnits(baseAmount: number, unit: DoseUnit): number {
  return unit === 'GALLON' ? baseAmount / 128 : unit === 'LB' ? baseAmount / 16 : baseAmount;
}

/** The item's free-text unit as one of the units above, or null ("bucket", "each", nothing). */
function itemUnitKey(unit: string | null | undefined): string | null {
  if (!unit) return null;
  const word = unit.toLowerCase().replace(/[.\s_-]+/g, '');
  const singular = word.length > 2 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
  return SPELLINGS[singular] ?? SPELLINGS[word] ?? null;
}

export interface ItemQuantity {
  /** Whole units of the item to book; null when the suggestion cannot be booked in this item's unit. */
  quantity: number | null;
  /** The suggestion in the item's unit before rounding. */
  exact: number | null;
  /** What the rounding (or the unit) means, in words; null when the amount is whole already. */
  note: string | null;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A suggestion (amount in `unit`) as whole units of an inventory item counted in `itemUnit`. A
 * liquid's item counted in "oz" is read as fluid ounces. Rounded to the nearest whole unit; an
 * amount that rounds to nothing cannot be booked (counting the item in a smaller unit can).
 *
 * @example toItemUnits(9.65, 'FL_OZ', 'fl oz') // { quantity: 10, exact: 9.65, note: '9.65 fl oz suggested, 10 fl oz booked (rounded up)' }
 */
export function toItemUnits(amount: number, unit: DoseUnit, itemUnit: string | null | undefined): ItemQuantity {
  const measure = measureOfUnit(unit);
  const key = itemUnitKey(itemUnit);
  const table = measure === 'volume' ? VOLUME_FL_OZ : measure === 'weight' ? WEIGHT_OZ : null;
  const asLiquidOunce = measure === 'volume' && key === 'oz';
  const perUnit = table && key ? (table[asLiquidOunce ? 'floz' : key] ?? null) : null;
  if (!perUnit) {
    const why = measure === 'share' ? 'a drain is not stock' : `the item is counted in ${itemUnit ? `"${itemUnit}"` : 'no unit'}, which is not a ${measure === 'volume' ? 'volume' : 'weight'}`;
    return { quantity: null, exact: null, note: `cannot be converted: ${why}; count it in ${measure === 'volume' ? 'fl oz' : 'oz'} to book suggestions in one tap` };
  }
  const unrounded = inBaseUnits(amount, unit) / perUnit;
  const quantity = Math.round(unrounded);
  const exact = round2(unrounded);
  const label = `${itemUnit}${asLiquidOunce ? ' (read as fl oz)' : ''}`;
  if (quantity === 0) return { quantity: null, exact, note: `${exact} ${label} rounds to 0: count this item in a smaller unit to book it` };
  if (quantity === unrounded) return { quantity, exact, note: null };
  return { quantity, exact, note: `${exact} ${label} suggested, ${quantity} ${itemUnit} booked (rounded ${quantity > unrounded ? 'up' : 'down'})` };
}
