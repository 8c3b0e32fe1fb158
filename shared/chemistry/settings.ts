import { ChemicalReadingShape } from '../resources/chemistry.js';
import type { Customer } from '../resources/customer.js';
import { boundsText } from '../schema/validate.js';
import type { ValidationIssue } from '../validation.js';
import { CHEMICAL_INFO, type Chemical, type WaterBody } from './chemicals.js';
import { DEFAULT_TARGETS, READING_LABELS, type WaterChemistrySettings, type WaterTargets } from './ranges.js';
import { measureOfUnit } from './units.js';

/**
 * An organization's water chemistry settings as the engine and the screens use them: what it saved,
 * or the defaults (an organization that never saved any has `waterChemistry: null`).
 */
export const DEFAULT_CHEMISTRY_SETTINGS: WaterChemistrySettings = {
  pool: DEFAULT_TARGETS.POOL,
  spa: DEFAULT_TARGETS.SPA,
  saltPool: DEFAULT_TARGETS.SALT_POOL,
  products: [],
  caps: [],
  fillWater: null,
};

export function chemistrySettingsOf(settings: { waterChemistry?: WaterChemistrySettings | null } | null | undefined): WaterChemistrySettings {
  return settings?.waterChemistry ?? DEFAULT_CHEMISTRY_SETTINGS;
}

export function targetsFor(settings: WaterChemistrySettings, body: WaterBody): WaterTargets {
  return body === 'SPA' ? settings.spa : body === 'SALT_POOL' ? settings.saltPool : settings.pool;
}

/** The product the organization uses for a chemical, if it named one. */
export function productFor(settings: WaterChemistrySettings, chemical: Chemical) {
  return settings.products.find((p) => p.chemical === chemical) ?? null;
}

/** The strength a dose of the chemical assumes: the organization's product's, else the usual one. */
export function strengthFor(settings: WaterChemistrySettings, chemical: Chemical): number | null {
  return productFor(settings, chemical)?.strengthPercent ?? CHEMICAL_INFO[chemical].strength?.default ?? null;
}

type WaterOf = Pick<Customer, 'pool' | 'bodiesOfWater'>;

/** The water a customer's visits balance: their pool, else their first body of water. */
function mainWater(customer: WaterOf | null | undefined) {
  if (!customer) return null;
  if (customer.pool?.volumeGallons != null || customer.pool?.kind) return customer.pool;
  return customer.bodiesOfWater?.[0] ?? customer.pool ?? null;
}

/** Which kind of water a customer has, for its target ranges: a spa, a salt pool, or a pool. */
export function waterBodyOf(customer: WaterOf | null | undefined): WaterBody {
  const water = mainWater(customer);
  if (water?.kind === 'SPA') return 'SPA';
  return /salt/i.test(water?.sanitizer ?? '') ? 'SALT_POOL' : 'POOL';
}

export function volumeOf(customer: WaterOf | null | undefined): number | null {
  return mainWater(customer)?.volumeGallons ?? null;
}

/** Why a strength cannot be used for a chemical, or null (each formula holds over a known span). */
export function strengthIssue(chemical: Chemical, strength: number | null | undefined): string | null {
  if (strength == null) return null;
  const span = CHEMICAL_INFO[chemical].strength;
  if (!span) return `${chemical} has no strength`;
  return strength < span.min || strength > span.max ? `must be between ${span.min} and ${span.max} (${span.meaning})` : null;
}

/** Why a target cannot be used for a reading (outside what a test kit shows, or not min <= target <= max), or null. */
function targetIssue(reading: keyof WaterTargets, t: { min: number; target: number; max: number }): string | null {
  const bounds = ChemicalReadingShape.fields[reading].meta.bounds ?? {};
  const outside = [t.min, t.target, t.max].some((v) => (bounds.min !== undefined && v < bounds.min) || (bounds.max !== undefined && v > bounds.max));
  if (outside) return boundsText(bounds);
  return t.min <= t.target && t.target <= t.max ? null : 'must have min <= target <= max';
}

/**
 * What is wrong with settings an organization wants to save, as validation issues (paths from the
 * settings object): target ranges in order and within what a test kit shows, one product and one cap
 * per chemical, strengths within their formulas' span, caps in the chemical's measure.
 */
export function settingsIssues(settings: WaterChemistrySettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const body of ['pool', 'spa', 'saltPool'] as const) {
    for (const reading of Object.keys(READING_LABELS) as (keyof WaterTargets)[]) {
      const t = settings[body][reading];
      const message = t && targetIssue(reading, t);
      if (message) issues.push({ path: [body, reading], message });
    }
  }
  const seen = new Set<Chemical>();
  settings.products.forEach((p, i) => {
    if (p.chemical === 'DRAIN') issues.push({ path: ['products', i, 'chemical'], message: 'draining is not a product' });
    if (seen.has(p.chemical)) issues.push({ path: ['products', i, 'chemical'], message: `${p.chemical} is listed twice` });
    seen.add(p.chemical);
    const message = p.chemical === 'DRAIN' ? null : strengthIssue(p.chemical, p.strengthPercent);
    if (message) issues.push({ path: ['products', i, 'strengthPercent'], message });
  });
  const capped = new Set<Chemical>();
  settings.caps.forEach((c, i) => {
    if (capped.has(c.chemical)) issues.push({ path: ['caps', i, 'chemical'], message: `${c.chemical} is capped twice` });
    capped.add(c.chemical);
    if (measureOfUnit(c.unit) !== CHEMICAL_INFO[c.chemical].measure) issues.push({ path: ['caps', i, 'unit'], message: `${c.unit} is not how ${CHEMICAL_INFO[c.chemical].label.toLowerCase()} is measured` });
  });
  return issues;
}
