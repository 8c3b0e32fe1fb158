/**
 * What a technician can add to the water (and draining, the one way to lower some readings), in
 * the names the API uses, with what each is measured in and the strengths its formulas accept.
 * Pure data: the resources' shapes and the engine both read it.
 */
export const CHEMICALS = [
  'LIQUID_CHLORINE',
  'CAL_HYPO',
  'TRICHLOR',
  'DICHLOR',
  'MURIATIC_ACID',
  'DRY_ACID',
  'SODA_ASH',
  'SODIUM_BICARBONATE',
  'CALCIUM_CHLORIDE',
  'CYANURIC_ACID',
  'SALT',
  'DRAIN',
] as const;
export type Chemical = (typeof CHEMICALS)[number];

/** Units a suggestion is given in: liquids by volume, dry chemicals by weight, a drain as a share of the water. */
export const DOSE_UNITS = ['FL_OZ', 'GALLON', 'OZ', 'LB', 'PERCENT'] as const;
export type DoseUnit = (typeof DOSE_UNITS)[number];

/** The readings the engine balances, in the order it doses them (each step sees what the earlier ones added). */
export const DOSED_READINGS = ['ph', 'totalAlkalinity', 'freeChlorine', 'cyanuricAcid', 'calciumHardness', 'salt'] as const;
export type DosedReading = (typeof DOSED_READINGS)[number];

/** The kinds of water an organization keeps target ranges for. */
export const WATER_BODIES = ['POOL', 'SPA', 'SALT_POOL'] as const;
export type WaterBody = (typeof WATER_BODIES)[number];

export type Measure = 'volume' | 'weight' | 'share';

export interface ChemicalInfo {
  label: string;
  measure: Measure;
  /**
   * Strength in percent: the default (what the formulas' sources assume) and what is accepted.
   * Null: the chemical has no strength (draining).
   */
  strength: { default: number; min: number; max: number; meaning: string } | null;
}

const pure = (label: string, measure: Measure, meaning: string, value = 100, min = 50): ChemicalInfo => ({
  label,
  measure,
  strength: { default: value, min, max: 100, meaning },
});

export const CHEMICAL_INFO: Readonly<Record<Chemical, ChemicalInfo>> = {
  LIQUID_CHLORINE: { label: 'Liquid chlorine', measure: 'volume', strength: { default: 12.5, min: 1, max: 15, meaning: 'available chlorine, trade percent (grams per 100 mL)' } },
  CAL_HYPO: { label: 'Cal-hypo', measure: 'weight', strength: { default: 65, min: 40, max: 80, meaning: 'available chlorine by weight' } },
  TRICHLOR: pure('Trichlor', 'weight', 'available chlorine by weight', 90),
  DICHLOR: pure('Dichlor', 'weight', 'available chlorine by weight', 56),
  MURIATIC_ACID: { label: 'Muriatic acid', measure: 'volume', strength: { default: 31.45, min: 10, max: 40, meaning: 'hydrochloric acid by weight' } },
  DRY_ACID: pure('Dry acid', 'weight', 'sodium bisulfate by weight', 93.2),
  SODA_ASH: pure('Soda ash', 'weight', 'sodium carbonate by weight'),
  SODIUM_BICARBONATE: pure('Sodium bicarbonate', 'weight', 'sodium bicarbonate by weight'),
  // 94-97 % is anhydrous calcium chloride, 77-80 % the dihydrate: two forms, two constants (doses.ts).
  CALCIUM_CHLORIDE: { label: 'Calcium chloride', measure: 'weight', strength: { default: 96, min: 70, max: 100, meaning: 'calcium chloride by weight: 90 and above is the anhydrous form, below the dihydrate' } },
  CYANURIC_ACID: pure('Cyanuric acid', 'weight', 'cyanuric acid by weight'),
  SALT: pure('Salt', 'weight', 'sodium chloride by weight', 100, 90),
  DRAIN: { label: 'Drain and refill', measure: 'share', strength: null },
};
