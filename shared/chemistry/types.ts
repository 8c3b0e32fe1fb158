import type { Chemical, DosedReading, DoseUnit, WaterBody } from './chemicals.js';
import type { ChemicalReading, WaterChemistrySettings } from './ranges.js';

/** What every version of the engine computes from, and what it answers. */
export interface BalanceInput {
  /** The visit's readings (any may be missing; `takenAt` is ignored). */
  readings: Partial<ChemicalReading> | null | undefined;
  volumeGallons?: number | null;
  /** Borates, ppm (not a visit reading: given when known). */
  borates?: number | null;
  /** Which of the organization's target ranges apply (default POOL). */
  body?: WaterBody;
  /** The organization's settings (default: DEFAULT_CHEMISTRY_SETTINGS). */
  settings?: WaterChemistrySettings;
  /** A target value per reading, overriding the ranges: a dose is suggested whenever the reading differs. */
  targets?: Partial<Record<DosedReading, number | null>> | null;
  /** Products to prefer (and their strengths) before the organization's own. */
  products?: readonly { chemical: Chemical; strengthPercent?: number | null }[] | null;
}

/**
 * Where the balance stands, by Trouble Free Pool's reading of CSI: within ±0.3 balanced; to ±0.6
 * leaning (LOW: towards etching, HIGH: towards scale); beyond, CORROSIVE or SCALING.
 */
export const BALANCE_BANDS = ['CORROSIVE', 'LOW', 'BALANCED', 'HIGH', 'SCALING'] as const;
export type BalanceBand = (typeof BALANCE_BANDS)[number];

/** Each band in words, as the apps and the customer's visit report say it. */
export const BAND_WORDS: Readonly<Record<BalanceBand, string>> = {
  CORROSIVE: 'Corrosive',
  LOW: 'Slightly corrosive',
  BALANCED: 'Balanced',
  HIGH: 'Slightly scaling',
  SCALING: 'Scaling',
};

/** Numbers are as computed (not rounded): a screen rounds what it shows, a test the precision it checks. */
export interface Dose {
  reading: DosedReading;
  chemical: Chemical;
  /** The strength the amount assumes; null for a drain. */
  strengthPercent: number | null;
  /** This visit's amount (after the organization's cap, if any), in `unit`. */
  amount: number;
  unit: DoseUnit;
  /** The reading before and after this amount (as the formulas predict). */
  from: number;
  to: number;
  /** What the reading is brought towards; `to` falls short of it when a cap held the amount back. */
  target: number;
  /** What a cap held back for the next visit, in `unit` (0 when nothing was). */
  carriedOver: number;
}

export interface WaterBalance {
  formulaVersion: number;
  /** Calcite Saturation Index, as Trouble Free Pool's PoolMath computes it; null when it cannot be. */
  csi: number | null;
  /** Langelier index from the factor table (continuous forms), on carbonate alkalinity. */
  lsi: number | null;
  /** The TDS constant the LSI subtracted: 12.1, 12.2 or 12.3. */
  lsiTdsConstant: number | null;
  /** Total alkalinity less what cyanurate and borate contribute, ppm as CaCO3. */
  carbonateAlkalinity: number | null;
  /** The band of the CSI (the LSI's when only it could be computed). */
  band: BalanceBand | null;
  doses: Dose[];
  /** What could not be computed or suggested, and what was assumed, in words. */
  notes: string[];
}
