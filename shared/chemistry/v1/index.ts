import { DOSED_READINGS, type Chemical, type DosedReading } from '../chemicals.js';
import type { ChemicalReading } from '../ranges.js';
import { DEFAULT_CHEMISTRY_SETTINGS, targetsFor } from '../settings.js';
import type { BalanceBand, BalanceInput, WaterBalance } from '../types.js';
import { carbonateAlkalinity, csiOf, extraSaltFromSalt, extraSaltFromTds, ionicStrength, lsiOf, tdsConstant } from './balance.js';
import { planDoses, type DosePlan } from './doses.js';

/**
 * Formula version 1 (shared/chemistry/README.md): CSI and table LSI on carbonate alkalinity,
 * PoolMath's dose constants, doses in the order pH, alkalinity, chlorine, cyanuric acid, calcium,
 * salt. Never change what this returns for a given input: a later version is a new folder, and
 * visits recorded with this one keep computing with it.
 */
export const VERSION = 1;

/** Bands are read from the index as it is shown (two decimals), so a shown 0.30 is BALANCED. */
const shown = (n: number) => Math.round(n * 100) / 100 || 0;

const READING_WORDS: Record<DosedReading | 'temperature', string> = {
  ph: 'pH',
  totalAlkalinity: 'alkalinity',
  freeChlorine: 'free chlorine',
  cyanuricAcid: 'cyanuric acid',
  calciumHardness: 'calcium hardness',
  salt: 'salt',
  temperature: 'temperature',
};

export function compute(input: BalanceInput): WaterBalance {
  const readings = measured(input.readings);
  const notes: string[] = [];
  const balance = balanceOf(readings, input.borates ?? 0, notes);
  const doses = dosesOf(input, readings, notes);
  return { formulaVersion: VERSION, ...balance, doses, notes };
}

/** The readings the engine uses, each a finite number or null (read once: this runs on every keystroke). */
interface Measured {
  ph: number | null;
  totalAlkalinity: number | null;
  freeChlorine: number | null;
  cyanuricAcid: number | null;
  calciumHardness: number | null;
  salt: number | null;
  tds: number | null;
  temperature: number | null;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function measured(r: Partial<ChemicalReading> | null | undefined): Measured {
  return {
    ph: num(r?.ph),
    totalAlkalinity: num(r?.totalAlkalinity),
    freeChlorine: num(r?.freeChlorine),
    cyanuricAcid: num(r?.cyanuricAcid),
    calciumHardness: num(r?.calciumHardness),
    salt: num(r?.salt),
    tds: num(r?.tds),
    temperature: num(r?.temperature),
  };
}

function balanceOf(r: Measured, borates: number, notes: string[]) {
  const none = { csi: null, lsi: null, lsiTdsConstant: null, carbonateAlkalinity: null, band: null };
  const { ph, totalAlkalinity: ta, calciumHardness: ch, temperature } = r;
  if (ph == null || ta == null || ch == null || temperature == null) {
    const missing = (['ph', 'totalAlkalinity', 'calciumHardness', 'temperature'] as const).filter((f) => r[f] == null);
    notes.push(`No CSI or LSI: ${missing.map((f) => READING_WORDS[f]).join(', ')} not measured.`);
    return none;
  }
  const cya = r.cyanuricAcid;
  if (cya == null) notes.push('Cyanuric acid not measured: the balance takes it as 0.');
  const carbAlk = carbonateAlkalinity(ph, ta, cya ?? 0, borates);
  if (ch <= 0 || carbAlk <= 0) {
    notes.push(ch <= 0 ? 'No CSI or LSI: calcium hardness is 0.' : 'No CSI or LSI: cyanuric acid and borates account for all the alkalinity (carbonate alkalinity is 0 or less).');
    return none;
  }
  const { salt, tds } = r;
  const extraNaCl = salt != null ? extraSaltFromSalt(salt, ch) : tds != null ? extraSaltFromTds(tds, ch, carbAlk, cya ?? 0) : 0;
  if (salt == null && tds == null) notes.push('No salt or TDS reading: the CSI takes the water as fresh, and the LSI its TDS as up to 1,000 ppm (C = 12.1).');
  else if (tds == null) notes.push('TDS not measured: the LSI takes it as at least the salt reading.');
  const csi = csiOf(ph, ch, carbAlk, ionicStrength(ch, ta, extraNaCl), temperature);
  const constant = tdsConstant(tds ?? salt ?? 0);
  return { csi, lsi: lsiOf(ph, ch, carbAlk, temperature, constant), lsiTdsConstant: constant, carbonateAlkalinity: carbAlk, band: bandOf(shown(csi)) };
}

export function bandOf(index: number): BalanceBand {
  if (index < -0.6) return 'CORROSIVE';
  if (index < -0.3) return 'LOW';
  if (index <= 0.3) return 'BALANCED';
  return index <= 0.6 ? 'HIGH' : 'SCALING';
}

function dosesOf(input: BalanceInput, r: Measured, notes: string[]) {
  const settings = input.settings ?? DEFAULT_CHEMISTRY_SETTINGS;
  const targets = targetsFor(settings, input.body ?? 'POOL');
  const explicit = input.targets ?? {};
  const tracked = DOSED_READINGS.filter((f) => targets[f] || explicit[f] != null);
  const missing = tracked.filter((f) => r[f] == null);
  if (missing.length && missing.length < tracked.length) notes.push(`Not measured, so nothing is suggested for: ${missing.map((f) => READING_WORDS[f]).join(', ')}.`);
  const gallons = input.volumeGallons;
  if (gallons == null || !(gallons > 0)) {
    notes.push('No pool volume known: doses need it (set the volume on the customer\'s pool).');
    return [];
  }
  const plan: DosePlan = { gallons, borates: input.borates ?? 0, targets, explicit, preferred: preferences(input, settings), settings };
  const planned = planDoses(plan, { ph: r.ph, totalAlkalinity: r.totalAlkalinity, freeChlorine: r.freeChlorine, cyanuricAcid: r.cyanuricAcid, calciumHardness: r.calciumHardness, salt: r.salt });
  notes.push(...planned.notes);
  return planned.doses;
}

/** The organization's own preferences, worked out once per settings object (a screen computes on every keystroke). */
const preferencesOf = new WeakMap<object, Map<Chemical, number | null>>();

/** The caller's products first, then the organization's, each chemical once with its strength. */
function preferences(input: BalanceInput, settings: NonNullable<BalanceInput['settings']>): ReadonlyMap<Chemical, number | null> {
  if (!input.products?.length) {
    let cached = preferencesOf.get(settings);
    if (!cached) preferencesOf.set(settings, (cached = merged([], settings)));
    return cached;
  }
  return merged(input.products, settings);
}

function merged(products: NonNullable<BalanceInput['products']>, settings: NonNullable<BalanceInput['settings']>): Map<Chemical, number | null> {
  const own = new Map(settings.products.map((p) => [p.chemical, p.strengthPercent ?? null]));
  const preferred = new Map<Chemical, number | null>();
  for (const p of [...products, ...settings.products]) {
    if (!preferred.has(p.chemical)) preferred.set(p.chemical, p.strengthPercent ?? own.get(p.chemical) ?? null);
  }
  return preferred;
}
