import { CHEMICAL_INFO, type Chemical, type DosedReading } from '../chemicals.js';
import type { WaterChemistrySettings, WaterTargets } from '../ranges.js';
import type { Dose } from '../types.js';
import { displayUnit, DOSE_UNIT_LABELS, fromBaseUnits, inBaseUnits, measureOfUnit } from '../units.js';
import * as formula from './formulas.js';

/**
 * Formula version 1: the doses that bring each reading into its target range, in a fixed order
 * (pH, alkalinity, chlorine, cyanuric acid, calcium, salt). Each step starts from the water the
 * earlier steps predicted (acid lowers alkalinity, trichlor adds cyanuric acid, cal-hypo calcium),
 * so the amounts add up. A per-visit cap holds a chemical's total back; the rest is carried over.
 */
export interface Water {
  ph: number | null;
  totalAlkalinity: number | null;
  freeChlorine: number | null;
  cyanuricAcid: number | null;
  calciumHardness: number | null;
  salt: number | null;
}

export interface DosePlan {
  gallons: number;
  borates: number;
  targets: WaterTargets;
  /** Explicit target values (a dose whenever the reading differs). */
  explicit: Partial<Record<DosedReading, number | null>>;
  /** Chemicals in the order the caller prefers them, with their strengths. */
  preferred: ReadonlyMap<Chemical, number | null>;
  settings: WaterChemistrySettings;
}

interface Step {
  plan: DosePlan;
  water: Water;
  doses: Dose[];
  notes: string[];
  /** Base units (fl oz, oz, %) of each chemical used so far, against its cap. */
  used: Map<Chemical, number>;
}

/** Numbers in notes are read by people: two decimals at most. */
const shown = (n: number) => String(Math.round(n * 100) / 100 || 0);

export function planDoses(plan: DosePlan, water: Water): { doses: Dose[]; notes: string[] } {
  const step: Step = { plan, water: { ...water }, doses: [], notes: [], used: new Map() };
  phStep(step);
  alkalinityStep(step);
  chlorineStep(step);
  dilutableStep(step, 'cyanuricAcid', 'CYANURIC_ACID', formula.cyanuricAcid);
  dilutableStep(step, 'calciumHardness', 'CALCIUM_CHLORIDE', formula.calciumChloride);
  dilutableStep(step, 'salt', 'SALT', formula.salt);
  if (step.doses.some((d) => d.chemical === 'DRAIN')) {
    step.notes.push('Drain and refill first, then test again: draining lowers every reading, and the other amounts assume no drain. One drain of the largest share serves every reading listed.');
  }
  return { doses: step.doses, notes: step.notes };
}

/** Where a reading should go, or null when it is where it should be. */
function goalOf(plan: DosePlan, reading: DosedReading, value: number): number | null {
  const explicit = plan.explicit[reading];
  if (explicit != null) return Math.abs(explicit - value) > 1e-9 ? explicit : null;
  const range = plan.targets[reading];
  if (!range || (value >= range.min && value <= range.max)) return null;
  return range.target;
}

/** The first of `candidates` the caller prefers, else the first. */
function choose<C extends Chemical>(plan: DosePlan, candidates: readonly C[]): C {
  const isCandidate = (chemical: Chemical): chemical is C => (candidates as readonly Chemical[]).includes(chemical);
  for (const chemical of plan.preferred.keys()) if (isCandidate(chemical)) return chemical;
  return candidates[0]!;
}

function strengthOf(plan: DosePlan, chemical: Chemical): number {
  return plan.preferred.get(chemical) ?? CHEMICAL_INFO[chemical].strength?.default ?? 100;
}

/** The organization's cap on a chemical per visit, in base units (the smallest if several), or Infinity. */
function capOf(step: Step, chemical: Chemical): number {
  let cap = Infinity;
  for (const c of step.plan.settings.caps) {
    if (c.chemical !== chemical || measureOfUnit(c.unit) !== CHEMICAL_INFO[chemical].measure) continue;
    cap = Math.min(cap, inBaseUnits(c.amount, c.unit));
  }
  return cap;
}

/**
 * Adds the dose that moves `reading` from `from` towards `goal`: `amountFor(to)` is what reaching
 * `to` takes, in base units. Under a cap, the reading this visit reaches is found by bisection
 * (every amount grows with the distance moved). Returns the reading reached and the amount.
 */
function addDose(step: Step, reading: DosedReading, chemical: Chemical, from: number, goal: number, amountFor: (to: number) => number): { reached: number; amount: number } | null {
  const full = amountFor(goal);
  if (!(full > 0) || !Number.isFinite(full)) return null;
  const used = step.used.get(chemical) ?? 0;
  const amount = Math.max(0, Math.min(full, capOf(step, chemical) - used));
  const reached = amount === full ? goal : reachedWith(amount, full, from, goal, amountFor);
  step.used.set(chemical, used + amount);
  const info = CHEMICAL_INFO[chemical];
  const unit = displayUnit(info.measure, full, chemical === 'SALT');
  const dose: Dose = {
    reading,
    chemical,
    strengthPercent: info.strength ? strengthOf(step.plan, chemical) : null,
    amount: fromBaseUnits(amount, unit),
    unit,
    from,
    to: reached,
    target: goal,
    carriedOver: fromBaseUnits(full - amount, unit),
  };
  step.doses.push(dose);
  if (dose.carriedOver > 0) {
    step.notes.push(`${info.label}: this visit's cap allows ${shown(dose.amount)} ${DOSE_UNIT_LABELS[unit]}; ${shown(dose.carriedOver)} ${DOSE_UNIT_LABELS[unit]} more is carried to the next visit.`);
  }
  return { reached, amount };
}

/**
 * The reading `amount` reaches on the way from `from` to `goal` (which takes `full`). Most amounts
 * grow in proportion to the distance, and the proportional guess is exact; the pH formulas (whose
 * factor depends on the mid-point pH) are solved by bisection.
 */
function reachedWith(amount: number, full: number, from: number, goal: number, amountFor: (to: number) => number): number {
  if (amount <= 0) return from;
  const guess = from + ((goal - from) * amount) / full;
  if (Math.abs(amountFor(guess) - amount) <= 1e-9 * full) return guess;
  let [near, far] = [from, goal];
  for (let i = 0; i < 40; i++) {
    const mid = (near + far) / 2;
    if (amountFor(mid) > amount) far = mid;
    else near = mid;
  }
  return near;
}

function phStep(step: Step): void {
  const { plan, water } = step;
  if (water.ph == null) return;
  const goal = goalOf(plan, 'ph', water.ph);
  if (goal == null) return;
  const ta = water.totalAlkalinity;
  if (ta == null) {
    step.notes.push('pH: no dose suggested, because the amount depends on alkalinity, which was not measured.');
    return;
  }
  const from = water.ph;
  const chemical = goal < from ? choose(plan, PH_DOWN) : 'SODA_ASH';
  const p = strengthOf(plan, chemical);
  const by = PH_FORMULAS[chemical];
  const done = addDose(step, 'ph', chemical, from, goal, (to) => by(from, to, plan.gallons, ta, plan.borates, p));
  if (!done) return;
  water.ph = done.reached;
  water.totalAlkalinity = Math.max(0, ta + formula.alkalinityChange[chemical](done.amount, plan.gallons, p));
}

const PH_DOWN = ['MURIATIC_ACID', 'DRY_ACID'] as const;
const PH_FORMULAS = { MURIATIC_ACID: formula.muriaticForPh, DRY_ACID: formula.dryAcidForPh, SODA_ASH: formula.sodaAshForPh };

function alkalinityStep(step: Step): void {
  const { plan, water } = step;
  if (water.totalAlkalinity == null) return;
  const from = water.totalAlkalinity;
  const goal = goalOf(plan, 'totalAlkalinity', from);
  if (goal == null) return;
  if (goal > from) {
    const p = strengthOf(plan, 'SODIUM_BICARBONATE');
    const done = addDose(step, 'totalAlkalinity', 'SODIUM_BICARBONATE', from, goal, (to) => formula.bicarbonateForAlkalinity(from, to, plan.gallons, p));
    if (done) water.totalAlkalinity = done.reached;
    return;
  }
  const chemical = choose(plan, ['MURIATIC_ACID', 'DRY_ACID']);
  const p = strengthOf(plan, chemical);
  const by = chemical === 'MURIATIC_ACID' ? formula.muriaticForAlkalinity : formula.dryAcidForAlkalinity;
  const done = addDose(step, 'totalAlkalinity', chemical, from, goal, (to) => by(from, to, plan.gallons, p));
  if (!done) return;
  water.totalAlkalinity = done.reached;
  step.notes.push('Alkalinity: acid lowers pH too; aerate (fountains, jets) to bring pH back up, and lower alkalinity over several visits.');
}

const CHLORINES = ['LIQUID_CHLORINE', 'CAL_HYPO', 'TRICHLOR', 'DICHLOR'] as const;

function chlorineStep(step: Step): void {
  const { plan, water } = step;
  if (water.freeChlorine == null) return;
  const from = water.freeChlorine;
  const goal = goalOf(plan, 'freeChlorine', from);
  if (goal == null) return;
  if (goal < from) {
    step.notes.push('Free chlorine is above its target: nothing to add; it falls by itself (sunlight, bathers).');
    return;
  }
  const chemical = choose(plan, CHLORINES);
  const p = strengthOf(plan, chemical);
  const by = { LIQUID_CHLORINE: formula.liquidChlorine, CAL_HYPO: formula.calHypo, TRICHLOR: formula.trichlor, DICHLOR: formula.dichlor }[chemical];
  const done = addDose(step, 'freeChlorine', chemical, from, goal, (to) => by(to - from, plan.gallons, p));
  if (!done) return;
  water.freeChlorine = done.reached;
  if (chemical === 'LIQUID_CHLORINE') return;
  const side = formula.CHLORINE_SIDE_EFFECTS[chemical];
  const added = side.perPpm * (done.reached - from);
  const before = water[side.reading];
  if (before != null) water[side.reading] = before + added;
  step.notes.push(`${CHEMICAL_INFO[chemical].label} also adds about ${shown(added)} ppm of ${side.reading === 'cyanuricAcid' ? 'cyanuric acid' : 'calcium hardness'}${before == null ? '' : ', counted below'}.`);
}

type Dilutable = 'cyanuricAcid' | 'calciumHardness' | 'salt';
const LABEL: Record<Dilutable, string> = { cyanuricAcid: 'Cyanuric acid', calciumHardness: 'Calcium hardness', salt: 'Salt' };

/** A reading raised by a chemical and lowered only by draining and refilling. */
function dilutableStep(step: Step, reading: Dilutable, chemical: Chemical, raise: (delta: number, gallons: number, p: number) => number): void {
  const { plan, water } = step;
  const from = water[reading];
  if (from == null) return;
  const goal = goalOf(plan, reading, from);
  if (goal == null) return;
  if (goal > from) {
    const p = strengthOf(plan, chemical);
    const done = addDose(step, reading, chemical, from, goal, (to) => raise(to - from, plan.gallons, p));
    if (done) water[reading] = done.reached;
    return;
  }
  const fill = plan.settings.fillWater?.[reading] ?? 0;
  if (goal <= fill) {
    step.notes.push(`${LABEL[reading]}: draining cannot bring it to ${goal}, because the fill water holds ${fill}.`);
    return;
  }
  const done = addDose(step, reading, 'DRAIN', from, goal, (to) => formula.drainShare(from, to, fill));
  if (done) water[reading] = done.reached;
}
