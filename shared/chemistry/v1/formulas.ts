/**
 * Formula version 1: how much of each chemical moves a reading, in US gallons, fluid ounces
 * (liquids) and ounces by weight (dry chemicals). The constants are Trouble Free Pool's PoolMath
 * (research file, section 1.3; each checked there against stoichiometry or a health code). A
 * strength other than the constant's own scales the amount in proportion, except liquid chlorine
 * (PoolMath's own strength curve) and calcium chloride (two forms, two constants).
 */

/** PoolMath's acid demand factor: a cubic in the mid-point pH times (TA + 13.91)/114.6, plus what borates add. */
export function acidDemand(fromPh: number, toPh: number, ta: number, borates: number): number {
  const m = (fromPh + toPh) / 2;
  const carbonate = ((192.1626 - 60.1221 * m + 6.0752 * m * m - 0.1943 * m * m * m) * (ta + 13.91)) / 114.6;
  const borate = (-5.476259 + 2.414292 * m - 0.355882 * m * m + 0.01755 * m * m * m) * borates;
  return carbonate + borate;
}

/** The strengths PoolMath's constants are written for. */
export const REFERENCE_STRENGTH = { MURIATIC_ACID: 31.45, DRY_ACID: 93.2, TRICHLOR: 90, DICHLOR: 56 } as const;

/** Muriatic acid to lower pH, fl oz: ΔpH·gal·adj/240.15 at 31.45 %. */
export const muriaticForPh = (fromPh: number, toPh: number, gallons: number, ta: number, borates: number, strength: number) =>
  (((fromPh - toPh) * gallons * acidDemand(fromPh, toPh, ta, borates)) / 240.15) * (REFERENCE_STRENGTH.MURIATIC_ACID / strength);

/** Dry acid (sodium bisulfate) to lower pH, oz: ΔpH·gal·adj/178.66 at 93.2 %. */
export const dryAcidForPh = (fromPh: number, toPh: number, gallons: number, ta: number, borates: number, strength: number) =>
  (((fromPh - toPh) * gallons * acidDemand(fromPh, toPh, ta, borates)) / 178.66) * (REFERENCE_STRENGTH.DRY_ACID / strength);

/** Soda ash to raise pH, oz: ΔpH·gal·adj/218.68. */
export const sodaAshForPh = (fromPh: number, toPh: number, gallons: number, ta: number, borates: number, strength: number) =>
  (((toPh - fromPh) * gallons * acidDemand(fromPh, toPh, ta, borates)) / 218.68) * (100 / strength);

/** Alkalinity (ppm as CaCO3) one fl oz of 31.45 % muriatic acid removes from one gallon. */
const MURIATIC_ALKALINITY = 3911.47;
/** One oz of dry acid does what 178.66/240.15 fl oz of muriatic acid does (the ratio of PoolMath's pH constants). */
const DRY_ACID_AS_MURIATIC = 178.66 / 240.15;
/** Alkalinity one oz of soda ash adds to one gallon (stoichiometry: 0.944 g CaCO3 per g). */
const SODA_ASH_ALKALINITY = 7072.46;

/** Muriatic acid to lower alkalinity, fl oz: ΔTA·gal/3911.47 at 31.45 %. */
export const muriaticForAlkalinity = (fromTa: number, toTa: number, gallons: number, strength: number) =>
  (((fromTa - toTa) * gallons) / MURIATIC_ALKALINITY) * (REFERENCE_STRENGTH.MURIATIC_ACID / strength);

/** Dry acid to lower alkalinity, oz: the muriatic amount through the ratio of the two acids' pH constants. */
export const dryAcidForAlkalinity = (fromTa: number, toTa: number, gallons: number, strength: number) =>
  (muriaticForAlkalinity(fromTa, toTa, gallons, REFERENCE_STRENGTH.MURIATIC_ACID) / DRY_ACID_AS_MURIATIC) * (REFERENCE_STRENGTH.DRY_ACID / strength);

/** Sodium bicarbonate to raise alkalinity, oz: ΔTA·gal/4259.15. */
export const bicarbonateForAlkalinity = (fromTa: number, toTa: number, gallons: number, strength: number) =>
  (((toTa - fromTa) * gallons) / 4259.15) * (100 / strength);

/** What an acid or soda ash dose does to alkalinity as a side effect, ppm (negative: lowers it). */
export const alkalinityChange = {
  MURIATIC_ACID: (flOz: number, gallons: number, strength: number) => (-flOz * (strength / REFERENCE_STRENGTH.MURIATIC_ACID) * MURIATIC_ALKALINITY) / gallons,
  DRY_ACID: (oz: number, gallons: number, strength: number) =>
    (-oz * (strength / REFERENCE_STRENGTH.DRY_ACID) * DRY_ACID_AS_MURIATIC * MURIATIC_ALKALINITY) / gallons,
  SODA_ASH: (oz: number, gallons: number, strength: number) => (oz * (strength / 100) * SODA_ASH_ALKALINITY) / gallons,
};

/** Liquid chlorine, fl oz: ΔFC·gal / ((75.71p + 0.746p²)·(p > 9 ? 1.02 − 0.008p : 1)), p the trade percent. */
export const liquidChlorine = (deltaFc: number, gallons: number, p: number) =>
  (deltaFc * gallons) / ((75.71 * p + 0.746 * p * p) * (p > 9 ? 1.02 - 0.008 * p : 1));

/** Cal-hypo, oz: ΔFC·gal/k, k = 74.28 per percent (PoolMath's 3565.44 at 48 %, 4828.12 at 65 %, 5422.41 at 73 %). */
export const calHypo = (deltaFc: number, gallons: number, p: number) => (deltaFc * gallons) / (74.28 * p);

/** Trichlor, oz: ΔFC·gal/6854.95; dichlor, oz: ΔFC·gal/4149.03. */
export const trichlor = (deltaFc: number, gallons: number, p: number) => ((deltaFc * gallons) / 6854.95) * (REFERENCE_STRENGTH.TRICHLOR / p);
export const dichlor = (deltaFc: number, gallons: number, p: number) => ((deltaFc * gallons) / 4149.03) * (REFERENCE_STRENGTH.DICHLOR / p);

/** What each chlorine brings besides chlorine, per ppm of FC: cyanuric acid (PoolMath) and calcium (stoichiometry, 100.09/(2·70.91)). */
export const CHLORINE_SIDE_EFFECTS = {
  TRICHLOR: { reading: 'cyanuricAcid', perPpm: 0.6 },
  DICHLOR: { reading: 'cyanuricAcid', perPpm: 0.9 },
  CAL_HYPO: { reading: 'calciumHardness', perPpm: 100.09 / (2 * 70.906) },
} as const;

/** Calcium chloride, oz: ΔCH·gal/6754.11 (anhydrous, sold as 94-97 %) or /5098.82 (dihydrate, 77-80 %). */
export const calciumChloride = (deltaCh: number, gallons: number, p: number) => (deltaCh * gallons) / (p >= 90 ? 6754.11 : 5098.82);

/** Cyanuric acid (granular stabilizer), oz: ΔCYA·gal/7489.51. */
export const cyanuricAcid = (deltaCya: number, gallons: number, p: number) => ((deltaCya * gallons) / 7489.51) * (100 / p);

/** Salt, oz: Δppm·gal/7468.64 (83.7 lb per 1,000 ppm in 10,000 gallons). */
export const salt = (deltaPpm: number, gallons: number, p: number) => ((deltaPpm * gallons) / 7468.64) * (100 / p);

/** The share of water to drain, percent, for a reading to fall from `from` to `to` with fill water at `fill`. */
export const drainShare = (from: number, to: number, fill: number) => 100 * (1 - (to - fill) / (from - fill));
