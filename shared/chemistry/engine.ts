import type { BalanceInput, WaterBalance } from './types.js';
import * as v1 from './v1/index.js';

/**
 * The water chemistry engine, by formula version. Every version stays callable: a visit keeps the
 * version it was first balanced with (`Service.chemistryVersion`) and is computed with it after
 * the engine moves on. A new version is a new folder beside v1/, registered here with what changed;
 * shared/chemistry/README.md lists them.
 */
export interface FormulaVersion {
  version: number;
  compute(input: BalanceInput): WaterBalance;
  /** What this version is, or what changed from the one before. */
  changes: string;
}

export const FORMULA_VERSIONS: ReadonlyMap<number, FormulaVersion> = new Map([
  [v1.VERSION, { version: v1.VERSION, compute: v1.compute, changes: "First version: PoolMath's CSI and dose constants, the table LSI in continuous form, per-visit caps." }],
]);

/** The version new readings are balanced with. */
export const CURRENT_FORMULA_VERSION = v1.VERSION;

/**
 * Balance and doses for a set of readings, by the given formula version (default: the current one).
 * A version this build does not know (readings balanced by a newer app) is computed with the current
 * one, and the answer says so.
 *
 * @example
 *   waterBalance({ readings: { ph: 7.8, totalAlkalinity: 80, calciumHardness: 250, cyanuricAcid: 80, salt: 3400, temperature: 94 } }).csi // -0.07
 */
export function waterBalance(input: BalanceInput, version: number | null = CURRENT_FORMULA_VERSION): WaterBalance {
  const engine = FORMULA_VERSIONS.get(version ?? CURRENT_FORMULA_VERSION);
  if (engine) return engine.compute(input);
  const answer = FORMULA_VERSIONS.get(CURRENT_FORMULA_VERSION)!.compute(input);
  return { ...answer, notes: [`Balanced with formula version ${version}, which this build does not know: computed with version ${CURRENT_FORMULA_VERSION}.`, ...answer.notes] };
}

/** The first formula version: the one of readings recorded before visits kept theirs (version 1 came with them). */
export const FIRST_FORMULA_VERSION = 1;

/**
 * The version a visit is computed with: the one it keeps; readings recorded before visits kept a
 * version (or written by a path that stamps none, such as a bulk update) are the first version's,
 * so their numbers never move; a visit without readings yet is balanced with the current one.
 */
export function visitFormulaVersion(visit: { chemicalReadings?: object | null; chemistryVersion?: number | null }): number {
  return visit.chemistryVersion ?? (visit.chemicalReadings ? FIRST_FORMULA_VERSION : CURRENT_FORMULA_VERSION);
}

/**
 * The formula version a visit keeps: the one it has, else (once it has readings) the current one.
 * Whoever writes readings first (the phone, GraphQL, a sync push from a client that sent none) stamps it.
 */
export function versionToKeep(readings: object | null | undefined, version: number | null | undefined): number | null {
  return version ?? (readings ? CURRENT_FORMULA_VERSION : null);
}
