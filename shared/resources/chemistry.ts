import { CHEMICALS, DOSE_UNITS } from '../chemistry/chemicals.js';
import { defineShape, f } from '../schema/fields.js';

/**
 * One set of water-test readings taken on a visit. Every reading is optional: a technician
 * records what the test kit measured. Units are fixed so values compare across visits, and each is
 * bounded by what a test kit can show: a value outside is a typing error, refused wherever it
 * arrives (GraphQL, a sync push, the SDK) with the same words naming the field.
 */
const ppm = (doc: string) => f.float().nullable().min(0).doc(doc);

export const ChemicalReadingShape = defineShape(
  'ChemicalReading',
  {
    freeChlorine: ppm('Free chlorine, ppm (mg/L)'),
    totalChlorine: ppm('Total chlorine, ppm (mg/L)'),
    ph: f.float().nullable().min(0).max(14).doc('pH, 0-14'),
    totalAlkalinity: ppm('Total alkalinity, ppm as CaCO3'),
    calciumHardness: ppm('Calcium hardness, ppm as CaCO3'),
    cyanuricAcid: ppm('Cyanuric acid (stabilizer), ppm'),
    salt: ppm('Salt, ppm'),
    phosphates: ppm('Phosphates, ppb'),
    tds: ppm('Total dissolved solids, ppm'),
    temperature: f.float().nullable().min(32).max(130).doc('Water temperature, degrees Fahrenheit'),
    takenAt: f.dateTime().nullable().doc('When the water was tested (device clock)'),
  },
  'Water chemistry readings of one visit; units are documented per field',
);

/** A pool's volume: more than nothing, at most what any pool holds (10 million US gallons). */
export const MAX_VOLUME_GALLONS = 10_000_000;
export const volumeGallons = () => f.float().nullable().min(0, { exclusive: true }).max(MAX_VOLUME_GALLONS).doc('Volume, US gallons');

const chemical = () => f.enum('Chemical', CHEMICALS);

/** Where a reading should be: doses are suggested outside min-max, aiming at target. */
export const ReadingTargetShape = defineShape('ReadingTarget', {
  min: f.float(),
  target: f.float(),
  max: f.float(),
});

const target = () => f.object(ReadingTargetShape);

/** The target ranges of one kind of water (a pool, a spa, a salt pool). No salt range: salt is never added. */
export const WaterTargetsShape = defineShape('WaterTargets', {
  freeChlorine: target(),
  ph: target(),
  totalAlkalinity: target(),
  calciumHardness: target(),
  cyanuricAcid: target(),
  salt: target().nullable(),
});

/** The product the organization uses for a chemical: which catalog item it is, and its strength. */
export const ChemicalProductShape = defineShape('ChemicalProduct', {
  chemical: chemical(),
  itemId: f.id().nullable().doc('The inventory item a dose of it is booked from'),
  strengthPercent: f.float().nullable().doc('Its strength; null: the usual one (see the README, Water chemistry)'),
});

/** At most this much of a chemical per visit; the rest of a suggestion is carried to the next visit. */
export const DoseCapShape = defineShape('DoseCap', {
  chemical: chemical(),
  amount: f.float().min(0, { exclusive: true }),
  unit: f.enum('DoseUnit', DOSE_UNITS),
});

/** What the water used to refill a drained pool holds (draining dilutes towards it). */
export const FillWaterShape = defineShape('FillWater', {
  calciumHardness: f.float().nullable().min(0),
  cyanuricAcid: f.float().nullable().min(0),
  salt: f.float().nullable().min(0),
});

export const WaterChemistrySettingsShape = defineShape(
  'WaterChemistrySettings',
  {
    pool: f.object(WaterTargetsShape),
    spa: f.object(WaterTargetsShape),
    saltPool: f.object(WaterTargetsShape),
    products: f.list(f.object(ChemicalProductShape)).doc('Preferred products, first listed first chosen where several would do'),
    caps: f.list(f.object(DoseCapShape)),
    fillWater: f.object(FillWaterShape).nullable(),
  },
  'Water chemistry: target ranges per kind of water, the products used, and per-visit caps',
);

/**
 * A stock movement that is a dose: what the engine suggested beside what was used (the movement's
 * delta, in whole units of the item). A correction is a further movement naming the one it corrects.
 */
export const DoseRecordShape = defineShape('DoseRecord', {
  chemical: chemical(),
  reading: f.string().nullable().max(40).doc('The reading the dose corrects, e.g. ph'),
  suggestedAmount: f.float().nullable().min(0),
  suggestedUnit: f.enum('DoseUnit', DOSE_UNITS).nullable(),
  strengthPercent: f.float().nullable().min(0, { exclusive: true }).max(100),
  formulaVersion: f.int().nullable().min(1),
  correctsMovementId: f.id().nullable().doc('Set on a correction: the movement it corrects'),
});
