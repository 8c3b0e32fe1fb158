import type { OrganizationSettings } from '../resources/organization.js';
import type { Service } from '../resources/service.js';
import type { WaterBody } from './chemicals.js';

export type ChemicalReading = NonNullable<Service['chemicalReadings']>;
export type WaterChemistrySettings = NonNullable<OrganizationSettings['waterChemistry']>;
export type WaterTargets = WaterChemistrySettings['pool'];
export type ReadingTarget = WaterTargets['ph'];

export interface ReadingRange {
  label: string;
  min: number;
  max: number;
  unit: string;
}

/** How each reading a range is kept for is named and measured. */
export const READING_LABELS = {
  freeChlorine: { label: 'Free chlorine', unit: 'ppm' },
  ph: { label: 'pH', unit: '' },
  totalAlkalinity: { label: 'Alkalinity', unit: 'ppm' },
  calciumHardness: { label: 'Calcium hardness', unit: 'ppm' },
  cyanuricAcid: { label: 'Cyanuric acid', unit: 'ppm' },
  salt: { label: 'Salt', unit: 'ppm' },
} as const satisfies Record<keyof WaterTargets, { label: string; unit: string }>;

const range = (min: number, target: number, max: number): ReadingTarget => ({ min, target, max });

/**
 * The target ranges an organization starts with, per kind of water (the usual recommendations for
 * chlorine pools; an organization edits its own under Settings). Doses are suggested for a reading
 * outside min-max and aim at the target. A pool and a spa have no salt range: salt is only ever
 * added to a salt pool.
 */
export const DEFAULT_TARGETS: Readonly<Record<WaterBody, WaterTargets>> = {
  POOL: {
    freeChlorine: range(1, 3, 5),
    ph: range(7.2, 7.5, 7.8),
    totalAlkalinity: range(80, 100, 120),
    calciumHardness: range(200, 300, 400),
    cyanuricAcid: range(30, 50, 80),
    salt: null,
  },
  SPA: {
    freeChlorine: range(3, 4, 5),
    ph: range(7.2, 7.5, 7.8),
    totalAlkalinity: range(80, 100, 120),
    calciumHardness: range(150, 200, 250),
    cyanuricAcid: range(30, 40, 50),
    salt: null,
  },
  SALT_POOL: {
    freeChlorine: range(1, 3, 5),
    ph: range(7.2, 7.5, 7.8),
    totalAlkalinity: range(80, 100, 120),
    calciumHardness: range(200, 300, 400),
    cyanuricAcid: range(60, 70, 80),
    salt: range(2700, 3200, 3400),
  },
};

/** The ranges of a kind of water's targets, as screens mark readings against them. */
export function rangesOf(targets: WaterTargets): Partial<Record<keyof ChemicalReading, ReadingRange>> {
  const ranges: Partial<Record<keyof ChemicalReading, ReadingRange>> = {};
  for (const [field, names] of Object.entries(READING_LABELS) as [keyof WaterTargets, { label: string; unit: string }][]) {
    const t = targets[field];
    if (t) ranges[field] = { ...names, min: t.min, max: t.max };
  }
  return ranges;
}

/**
 * The ranges every screen, report and message marks a reading against when the kind of water is
 * not known: the default pool's, with the default salt pool's salt range. They are the default
 * targets, not a second definition; where the organization's targets and the pool are known,
 * screens mark against those (`rangesOf`).
 */
export const READING_RANGES: Partial<Record<keyof ChemicalReading, ReadingRange>> = rangesOf({ ...DEFAULT_TARGETS.POOL, salt: DEFAULT_TARGETS.SALT_POOL.salt });

export interface ReadingView {
  field: keyof ChemicalReading;
  label: string;
  value: number;
  unit: string;
  outOfRange: boolean;
}

/** The readings a visit has, in a fixed order, each marked when outside its range. */
export function readingsOf(readings: Partial<ChemicalReading> | null | undefined, ranges = READING_RANGES): ReadingView[] {
  if (!readings) return [];
  const views: ReadingView[] = [];
  for (const field of Object.keys(READING_LABELS) as (keyof WaterTargets)[]) {
    const value = readings[field];
    if (typeof value !== 'number') continue;
    const range = ranges[field];
    views.push({ field, ...READING_LABELS[field], value, outOfRange: range ? value < range.min || value > range.max : false });
  }
  if (typeof readings.temperature === 'number') views.push({ field: 'temperature', label: 'Water', value: readings.temperature, unit: '°F', outOfRange: false });
  return views;
}
