import { describe, expect, it } from 'vitest';
import {
  CURRENT_FORMULA_VERSION,
  DEFAULT_CHEMISTRY_SETTINGS,
  READING_RANGES,
  rangesOf,
  readingsOf,
  recordValidator,
  serviceResource,
  settingsIssues,
  targetsFor,
  toItemUnits,
  visitBalance,
  visitChemistry,
  visitFormulaVersion,
  waterBalance,
  type BalanceInput,
  type WaterChemistrySettings,
} from '../shared/index.js';
import { carbonateAlkalinity, lsiOf, temperatureFactor } from '../shared/chemistry/v1/balance.js';
import { muriaticForPh } from '../shared/chemistry/v1/formulas.js';
import { atPrecision, VECTORS } from './fixtures/chemistry-vectors.js';

/**
 * The water chemistry engine (shared/chemistry): the issue's vectors to the precision shown, and
 * the edges a technician meets (nothing measured, borates, a spa, a salt pool, a cap, an item
 * counted in gallons). The same vectors run in Chromium through the SDK bundle
 * (test/chemistry-browser.test.ts).
 */
const tenK = 10_000;
const balanced = { ph: 7.5, totalAlkalinity: 100, freeChlorine: 3, calciumHardness: 300, cyanuricAcid: 50, temperature: 80 };
const dose = (input: BalanceInput, reading: string) => waterBalance(input).doses.find((d) => d.reading === reading);
/** Numbers to two decimals, for comparing what the engine computes unrounded. */
const r2 = <T,>(value: T): T => JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v)));
const withSettings = (patch: Partial<WaterChemistrySettings>): WaterChemistrySettings => ({ ...DEFAULT_CHEMISTRY_SETTINGS, ...patch });

describe('the issue vectors', () => {
  it.each(VECTORS.map((v) => [v.name, v] as const))('%s', (_, v) => {
    expect(atPrecision(v.read(waterBalance(v.input)), v.places)).toBe(v.expected);
  });

  it('says which index, which constants and which formula version it used', () => {
    const answer = r2(waterBalance(VECTORS[0]!.input));
    expect(answer).toMatchObject({ formulaVersion: 1, csi: -0.07, lsiTdsConstant: 12.3, carbonateAlkalinity: 51.98, band: 'BALANCED' });
    // No TDS reading: the LSI took the salt as a lower bound of TDS, and the answer says so.
    expect(answer.notes).toContain('TDS not measured: the LSI takes it as at least the salt reading.');
  });

  it('table LSI with the TDS constant 12.1 / 12.2 / 12.3 for TDS up to 1,000 / 2,000 / above', () => {
    const readings = { ph: 7.8, totalAlkalinity: 80, calciumHardness: 250, cyanuricAcid: 80, temperature: 94 };
    const at = (tds: number) => waterBalance({ readings: { ...readings, tds } });
    expect(r2([at(1000), at(2000), at(2001)].map((a) => [a.lsiTdsConstant, a.lsi]))).toEqual([
      [12.1, 0.21],
      [12.2, 0.11],
      [12.3, 0.01],
    ]);
    // The table's factors, to its own precision: 94 F is 0.8; CF(250) log form 2.00; AF of 52 ppm carbonate alkalinity 1.72.
    expect(temperatureFactor(94)).toBe(0.8);
    expect(temperatureFactor(80)).toBeCloseTo(0.65, 5);
    expect(lsiOf(7.8, 250, carbonateAlkalinity(7.8, 80, 80, 0), 94, 12.1)).toBeCloseTo(7.8 + 0.8 + 1.998 + 1.716 - 12.1, 2);
  });

  it('dry acid and soda ash (research file, section 1.3)', () => {
    expect(r2(dose({ readings: { ph: 7.8, totalAlkalinity: 100 }, volumeGallons: tenK, targets: { ph: 7.5, totalAlkalinity: 100 }, products: [{ chemical: 'DRY_ACID' }] }, 'ph'))).toMatchObject({ chemical: 'DRY_ACID', unit: 'OZ', amount: 12.97 });
    expect(r2(dose({ readings: { ph: 7.2, totalAlkalinity: 80 }, volumeGallons: tenK, targets: { ph: 7.5, totalAlkalinity: 80 } }, 'ph'))).toMatchObject({ chemical: 'SODA_ASH', amount: 14.76 });
    expect(r2(dose({ readings: { freeChlorine: 2 }, volumeGallons: tenK, targets: { freeChlorine: 3 }, products: [{ chemical: 'CAL_HYPO', strengthPercent: 65 }] }, 'freeChlorine'))).toMatchObject({ unit: 'OZ', amount: 2.07 });
  });
});

describe('the research file\'s other per-10,000-gallon figures (section 1.3)', () => {
  const amount = (input: BalanceInput, reading: string, places = 1) => atPrecision(dose({ volumeGallons: tenK, ...input }, reading)?.amount, places);
  it('acid for -10 ppm alkalinity, granular cyanuric acid for +10 ppm, calcium chloride dihydrate (77-80 %) for +10 ppm', () => {
    expect(amount({ readings: { totalAlkalinity: 130 }, targets: { totalAlkalinity: 120 } }, 'totalAlkalinity')).toBe(25.6);
    expect(amount({ readings: { cyanuricAcid: 30 }, targets: { cyanuricAcid: 40 } }, 'cyanuricAcid')).toBe(13.4);
    expect(amount({ readings: { calciumHardness: 250 }, targets: { calciumHardness: 260 }, products: [{ chemical: 'CALCIUM_CHLORIDE', strengthPercent: 78 }] }, 'calciumHardness')).toBe(19.6);
  });
});

describe('balance at the edges', () => {
  it('no cyanuric acid reading: the CSI counts none, and says so', () => {
    const answer = waterBalance({ readings: { ...balanced, cyanuricAcid: null } });
    expect(answer.csi).not.toBeNull();
    expect(answer.carbonateAlkalinity).toBeCloseTo(100, 9);
    expect(answer.notes).toContain('Cyanuric acid not measured: the balance takes it as 0.');
  });

  it('borates take their share of the alkalinity: the CSI falls', () => {
    const without = waterBalance({ readings: balanced });
    const withBorates = waterBalance({ readings: balanced, borates: 50 });
    expect(withBorates.carbonateAlkalinity!).toBeLessThan(without.carbonateAlkalinity!);
    expect(withBorates.csi!).toBeLessThan(without.csi!);
  });

  it('a missing reading is not an error: what can be computed is, the notes say what could not', () => {
    const answer = waterBalance({ readings: { ph: 7.9, freeChlorine: 0.5 }, volumeGallons: tenK });
    expect(answer).toMatchObject({ csi: null, lsi: null, band: null });
    expect(answer.notes).toContain('No CSI or LSI: alkalinity, calcium hardness, temperature not measured.');
    expect(answer.notes).toContain('pH: no dose suggested, because the amount depends on alkalinity, which was not measured.');
    expect(answer.doses.map((d) => d.reading)).toEqual(['freeChlorine']);
  });

  it('no volume: the balance, but no doses, and the notes say why', () => {
    const answer = waterBalance({ readings: { ...balanced, ph: 8.2 } });
    expect(answer.csi).not.toBeNull();
    expect(answer.doses).toEqual([]);
    expect(answer.notes).toContain("No pool volume known: doses need it (set the volume on the customer's pool).");
  });

  it('bands by CSI: balanced within 0.3, leaning to 0.6, corrosive or scaling beyond', () => {
    const band = (ph: number) => waterBalance({ readings: { ...balanced, ph } }).band;
    expect([band(6.8), band(7.1), band(7.5), band(7.9), band(8.4)]).toEqual(['CORROSIVE', 'LOW', 'BALANCED', 'HIGH', 'SCALING']);
  });
});

describe('doses', () => {
  it('a reading inside its range gets nothing; outside, it is brought to the target', () => {
    expect(waterBalance({ readings: { ...balanced, ph: 7.8 }, volumeGallons: tenK }).doses).toEqual([]);
    expect(dose({ readings: { ...balanced, ph: 7.9 }, volumeGallons: tenK }, 'ph')).toMatchObject({ chemical: 'MURIATIC_ACID', from: 7.9, to: 7.5, target: 7.5, carriedOver: 0 });
  });

  it('in the order pH, alkalinity, chlorine, cyanuric acid, calcium, salt, each step after what the earlier added', () => {
    const settings = withSettings({ products: [{ chemical: 'TRICHLOR', itemId: null, strengthPercent: null }] });
    const answer = waterBalance({ readings: { ph: 8.0, totalAlkalinity: 70, freeChlorine: 0, cyanuricAcid: 20, calciumHardness: 150, salt: 2000 }, volumeGallons: 15_000, body: 'SALT_POOL', settings });
    expect(answer.doses.map((d) => [d.reading, d.chemical])).toEqual([
      ['ph', 'MURIATIC_ACID'],
      ['totalAlkalinity', 'SODIUM_BICARBONATE'],
      ['freeChlorine', 'TRICHLOR'],
      ['cyanuricAcid', 'CYANURIC_ACID'],
      ['calciumHardness', 'CALCIUM_CHLORIDE'],
      ['salt', 'SALT'],
    ]);
    // The acid lowered alkalinity before the alkalinity step; trichlor's 3 ppm added 1.8 ppm of cyanuric acid.
    expect(answer.doses[1]!.from).toBeLessThan(70);
    expect(answer.doses[3]!.from).toBeCloseTo(21.8, 9);
    expect(answer.notes).toContain('Trichlor also adds about 1.8 ppm of cyanuric acid, counted below.');
  });

  it('cal-hypo, trichlor and dichlor per ppm (research file, section 1.3), and what each adds besides chlorine', () => {
    const perPpm = (chemical: 'CAL_HYPO' | 'TRICHLOR' | 'DICHLOR') =>
      dose({ readings: { freeChlorine: 2 }, volumeGallons: tenK, targets: { freeChlorine: 3 }, products: [{ chemical }] }, 'freeChlorine')!;
    expect(perPpm('CAL_HYPO')).toMatchObject({ chemical: 'CAL_HYPO', strengthPercent: 65, unit: 'OZ' });
    expect(atPrecision(perPpm('CAL_HYPO').amount, 2)).toBe(2.07);
    expect(atPrecision(perPpm('TRICHLOR').amount, 2)).toBe(1.46);
    expect(atPrecision(perPpm('DICHLOR').amount, 2)).toBe(2.41);
    // 3 ppm of chlorine from each: cal-hypo brings 0.706 ppm of calcium per ppm, dichlor 0.9 ppm of cyanuric acid.
    const after = (chemical: 'CAL_HYPO' | 'DICHLOR', reading: 'calciumHardness' | 'cyanuricAcid') =>
      dose({ readings: { freeChlorine: 0, calciumHardness: 150, cyanuricAcid: 20 }, volumeGallons: tenK, products: [{ chemical }] }, reading)!.from;
    expect(after('CAL_HYPO', 'calciumHardness')).toBeCloseTo(150 + 3 * 0.706, 2);
    expect(after('CAL_HYPO', 'cyanuricAcid')).toBe(20);
    expect(after('DICHLOR', 'cyanuricAcid')).toBeCloseTo(20 + 3 * 0.9, 6);
    expect(after('DICHLOR', 'calciumHardness')).toBe(150);
  });

  it('free chlorine above its range: nothing to add, and the notes say it falls by itself', () => {
    const answer = waterBalance({ readings: { ...balanced, freeChlorine: 8 }, volumeGallons: tenK });
    expect(answer.doses).toEqual([]);
    expect(answer.notes).toContain('Free chlorine is above its target: nothing to add; it falls by itself (sunlight, bathers).');
  });

  it('a spa has its own ranges: calcium 300 is high for a spa, fine for a pool', () => {
    const readings = { ...balanced, calciumHardness: 300, cyanuricAcid: 40, freeChlorine: 4 };
    expect(waterBalance({ readings, volumeGallons: 500 }).doses).toEqual([]);
    expect(r2(waterBalance({ readings, volumeGallons: 500, body: 'SPA' }).doses)).toEqual([
      { reading: 'calciumHardness', chemical: 'DRAIN', strengthPercent: null, amount: 33.33, unit: 'PERCENT', from: 300, to: 200, target: 200, carriedOver: 0 },
    ]);
  });

  it('salt is added to a salt pool only, in pounds', () => {
    const readings = { ...balanced, cyanuricAcid: 70, salt: 2500 };
    expect(waterBalance({ readings, volumeGallons: 20_000 }).doses).toEqual([]);
    expect(r2(dose({ readings, volumeGallons: 20_000, body: 'SALT_POOL' }, 'salt'))).toMatchObject({ chemical: 'SALT', unit: 'LB', amount: 117.16, from: 2500, to: 3200 });
  });

  it('draining dilutes towards the fill water, and cannot go below it', () => {
    const settings = withSettings({ fillWater: { calciumHardness: 150, cyanuricAcid: null, salt: null } });
    expect(r2(dose({ readings: { calciumHardness: 600 }, volumeGallons: tenK, settings }, 'calciumHardness'))).toMatchObject({ chemical: 'DRAIN', amount: 66.67, to: 300 });
    const answer = waterBalance({ readings: { calciumHardness: 600 }, volumeGallons: tenK, settings, targets: { calciumHardness: 100 } });
    expect(answer.doses).toEqual([]);
    expect(answer.notes).toContain('Calcium hardness: draining cannot bring it to 100, because the fill water holds 150.');
  });

  it('a cap holds a chemical back: the rest is carried to the next visit, and shown as such', () => {
    const settings = withSettings({ caps: [{ chemical: 'MURIATIC_ACID', amount: 8, unit: 'FL_OZ' }] });
    const d = dose({ readings: { ph: 7.8, totalAlkalinity: 100 }, volumeGallons: tenK, targets: { ph: 7.5, totalAlkalinity: 100 }, settings }, 'ph')!;
    expect(r2(d)).toMatchObject({ amount: 8, carriedOver: 1.65, target: 7.5 });
    // `to` is where 8 fl oz brings the pH: the same formula from 7.8 to it gives 8 fl oz.
    expect(d.to).toBeGreaterThan(7.5);
    expect(muriaticForPh(7.8, d.to, tenK, 100, 0, 31.45)).toBeCloseTo(8, 6);
    const notes = waterBalance({ readings: { ph: 7.8, totalAlkalinity: 100 }, volumeGallons: tenK, targets: { ph: 7.5, totalAlkalinity: 100 }, settings }).notes;
    expect(notes).toContain("Muriatic acid: this visit's cap allows 8 fl oz; 1.65 fl oz more is carried to the next visit.");
  });

  it('a cap counts everything of the chemical on the visit (acid for pH, then for alkalinity)', () => {
    const settings = withSettings({ caps: [{ chemical: 'MURIATIC_ACID', amount: 1, unit: 'GALLON' }] });
    const answer = waterBalance({ readings: { ph: 8.0, totalAlkalinity: 180 }, volumeGallons: tenK, settings });
    const [ph, ta] = answer.doses;
    expect(ph).toMatchObject({ reading: 'ph', carriedOver: 0 });
    const usedOnPh = ph!.unit === 'GALLON' ? ph!.amount * 128 : ph!.amount;
    expect(ta).toMatchObject({ reading: 'totalAlkalinity', chemical: 'MURIATIC_ACID', unit: 'GALLON' });
    expect(ta!.amount * 128 + usedOnPh).toBeCloseTo(128, 0);
    expect(ta!.carriedOver).toBeGreaterThan(0);
  });

  it("the organization's products and strengths, and the caller's before them", () => {
    const settings = withSettings({ products: [{ chemical: 'DRY_ACID', itemId: null, strengthPercent: null }, { chemical: 'MURIATIC_ACID', itemId: null, strengthPercent: 14.5 }] });
    const input = { readings: { ph: 7.8, totalAlkalinity: 100 }, volumeGallons: tenK, targets: { ph: 7.5, totalAlkalinity: 100 }, settings };
    expect(dose(input, 'ph')?.chemical).toBe('DRY_ACID');
    // Muriatic acid at 14.5 %: the research file's factor 2.169 on the 31.45 % amount.
    const weak = dose({ ...input, products: [{ chemical: 'MURIATIC_ACID' }] }, 'ph')!;
    expect(weak).toMatchObject({ chemical: 'MURIATIC_ACID', strengthPercent: 14.5 });
    expect(weak.amount / 9.6464).toBeCloseTo(2.169, 2);
  });
});

describe('formula versions', () => {
  it('a visit keeps the version it was balanced with; an unknown one is computed with the current one and says so', () => {
    const visit = { chemicalReadings: { ...balanced, ph: 7.9, totalChlorine: null, salt: null, phosphates: null, tds: null, takenAt: null }, chemistryVersion: 1 };
    expect(visitBalance(visit, { pool: null, bodiesOfWater: [] }, DEFAULT_CHEMISTRY_SETTINGS).formulaVersion).toBe(1);
    // Readings recorded before visits kept a version are the first version's; a visit without readings yet is balanced with the current one.
    expect(visitFormulaVersion({ chemicalReadings: visit.chemicalReadings, chemistryVersion: null })).toBe(1);
    expect(visitFormulaVersion({ chemicalReadings: null, chemistryVersion: null })).toBe(CURRENT_FORMULA_VERSION);
    const later = waterBalance({ readings: balanced }, 99);
    expect(later.formulaVersion).toBe(CURRENT_FORMULA_VERSION);
    expect(later.notes[0]).toBe(`Balanced with formula version 99, which this build does not know: computed with version ${CURRENT_FORMULA_VERSION}.`);
  });
});

describe('item units', () => {
  it('a suggestion is converted to the item unit and rounded, the rounding shown', () => {
    expect(toItemUnits(9.65, 'FL_OZ', 'fl oz')).toEqual({ quantity: 10, exact: 9.65, note: '9.65 fl oz suggested, 10 fl oz booked (rounded up)' });
    expect(toItemUnits(23.48, 'OZ', 'oz')).toEqual({ quantity: 23, exact: 23.48, note: '23.48 oz suggested, 23 oz booked (rounded down)' });
    expect(toItemUnits(12, 'FL_OZ', 'floz')).toEqual({ quantity: 12, exact: 12, note: null });
    // A liquid's item counted in "oz" is read as fluid ounces.
    expect(toItemUnits(9.65, 'FL_OZ', 'oz').quantity).toBe(10);
  });

  it('an item counted in gallons: 1.65 gal of acid is booked as 2; 9.65 fl oz rounds to nothing and cannot be booked', () => {
    const ta = dose({ readings: { totalAlkalinity: 180 }, volumeGallons: 15_000, targets: { totalAlkalinity: 125 } }, 'totalAlkalinity')!;
    expect(r2(ta)).toMatchObject({ chemical: 'MURIATIC_ACID', unit: 'GALLON', amount: 1.65 });
    expect(toItemUnits(ta.amount, ta.unit, 'gallons')).toEqual({ quantity: 2, exact: 1.65, note: '1.65 gallons suggested, 2 gallons booked (rounded up)' });
    expect(toItemUnits(9.65, 'FL_OZ', 'gal')).toEqual({ quantity: null, exact: 0.08, note: '0.08 gal rounds to 0: count this item in a smaller unit to book it' });
  });

  it('units that are not the measure, or not units at all, are not converted', () => {
    expect(toItemUnits(2, 'LB', 'bucket').quantity).toBeNull();
    expect(toItemUnits(2, 'LB', 'gallon').quantity).toBeNull();
    expect(toItemUnits(20, 'PERCENT', 'gallon').quantity).toBeNull();
    expect(toItemUnits(2, 'LB', 'kg')).toMatchObject({ quantity: 1, exact: 0.91 });
  });
});

describe('targets and ranges', () => {
  it('the default targets are the ranges every screen marks against (one definition)', () => {
    const pool = rangesOf(targetsFor(DEFAULT_CHEMISTRY_SETTINGS, 'POOL'));
    for (const [field, range] of Object.entries(pool)) expect(READING_RANGES[field as keyof typeof READING_RANGES]).toEqual(range);
    expect(READING_RANGES.salt).toMatchObject(rangesOf(targetsFor(DEFAULT_CHEMISTRY_SETTINGS, 'SALT_POOL')).salt!);
    // A pool has no salt range: its salt reading is shown, unmarked.
    expect(readingsOf({ salt: 500 }, pool)).toEqual([{ field: 'salt', label: 'Salt', value: 500, unit: 'ppm', outOfRange: false }]);
    expect(readingsOf({ salt: 500 })[0]!.outOfRange).toBe(true);
  });

  it('settings are checked: ranges in order and within what a test kit shows, one product per chemical, strengths and cap units that fit', () => {
    const bad = withSettings({
      pool: { ...DEFAULT_CHEMISTRY_SETTINGS.pool, ph: { min: 7.8, target: 7.5, max: 7.2 } },
      spa: { ...DEFAULT_CHEMISTRY_SETTINGS.spa, ph: { min: 7, target: 7.5, max: 15 } },
      products: [
        { chemical: 'LIQUID_CHLORINE', itemId: null, strengthPercent: 40 },
        { chemical: 'LIQUID_CHLORINE', itemId: null, strengthPercent: null },
      ],
      caps: [{ chemical: 'SALT', amount: 2, unit: 'GALLON' }],
    });
    expect(settingsIssues(bad)).toEqual([
      { path: ['pool', 'ph'], message: 'must have min <= target <= max' },
      { path: ['spa', 'ph'], message: 'must be between 0 and 14' },
      { path: ['products', 0, 'strengthPercent'], message: 'must be between 1 and 15 (available chlorine, trade percent (grams per 100 mL))' },
      { path: ['products', 1, 'chemical'], message: 'LIQUID_CHLORINE is listed twice' },
      { path: ['caps', 0, 'unit'], message: 'GALLON is not how salt is measured' },
    ]);
    expect(settingsIssues(DEFAULT_CHEMISTRY_SETTINGS)).toEqual([]);
  });
});

describe('readings are bounded by what a test kit shows', () => {
  it('the shared definition refuses them with words naming the field', () => {
    const visit = (readings: object) => recordValidator(serviceResource).safeParse({ id: 'v1', photos: [], createdAt: '2026-11-26T10:00:00Z', updatedAt: '2026-11-26T10:00:00Z', chemicalReadings: readings });
    const messages = (readings: object) => visit(readings).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages({ ph: 15 })).toEqual(['chemicalReadings.ph: must be between 0 and 14']);
    expect(messages({ freeChlorine: -1 })).toEqual(['chemicalReadings.freeChlorine: must be at least 0']);
    expect(messages({ temperature: 31 })).toEqual(['chemicalReadings.temperature: must be between 32 and 130']);
    expect(visit({ ph: 14, freeChlorine: 0, temperature: 130 }).success).toBe(true);
  });
});

describe('a visit for a report', () => {
  it('readings against the targets of its water, its balance, and what was added with corrections folded in', () => {
    const report = visitChemistry({
      visit: { chemicalReadings: { ...balanced, ph: 7.9, totalChlorine: null, salt: 3000, phosphates: null, tds: null, takenAt: null }, chemistryVersion: 1 },
      customer: { pool: { kind: 'POOL', volumeGallons: tenK, surface: null, sanitizer: 'SALT', filterType: null, heated: null, indoor: null, gateCode: null, notes: null }, bodiesOfWater: [] },
      organizationSettings: { waterChemistry: null },
      movements: [
        { id: 'm1', itemId: 'acid', locationId: 'truck', delta: -10, reason: 'USE', dose: { chemical: 'MURIATIC_ACID', reading: 'ph', suggestedAmount: 9.65, suggestedUnit: 'FL_OZ', strengthPercent: 31.45, formulaVersion: 1, correctsMovementId: null } },
        { id: 'm2', itemId: 'acid', locationId: 'truck', delta: 2, reason: 'RETURN', dose: { chemical: 'MURIATIC_ACID', reading: 'ph', suggestedAmount: null, suggestedUnit: null, strengthPercent: 31.45, formulaVersion: 1, correctsMovementId: 'm1' } },
        { id: 'm3', itemId: 'tabs', locationId: 'truck', delta: -1, reason: 'USE', dose: null },
      ],
      items: [
        { id: 'acid', name: 'Muriatic acid 31.45%', unit: 'fl oz', costPrice: 0.12 },
        { id: 'tabs', name: 'Chlorine tabs', unit: 'bucket', costPrice: null },
      ],
    });
    expect(report.body).toBe('SALT_POOL');
    expect(report.readings.find((r) => r.field === 'ph')).toMatchObject({ value: 7.9, outOfRange: true });
    // Salt 3,000 is marked against the salt pool's range, which a plain pool does not have.
    expect(report.ranges.salt).toMatchObject({ min: 2700, max: 3400 });
    expect(report.readings.find((r) => r.field === 'salt')).toMatchObject({ value: 3000, outOfRange: false });
    expect(report.balance.doses[0]).toMatchObject({ reading: 'ph', chemical: 'MURIATIC_ACID' });
    expect(report.added).toEqual([
      { movementId: 'm1', itemId: 'acid', locationId: 'truck', itemName: 'Muriatic acid 31.45%', chemical: 'MURIATIC_ACID', reading: 'ph', quantity: 8, unit: 'fl oz', suggestedAmount: 9.65, suggestedUnit: 'FL_OZ', formulaVersion: 1, cost: 0.96 },
      { movementId: 'm3', itemId: 'tabs', locationId: 'truck', itemName: 'Chlorine tabs', chemical: null, reading: null, quantity: 1, unit: 'bucket', suggestedAmount: null, suggestedUnit: null, formulaVersion: null, cost: null },
    ]);
  });
});
