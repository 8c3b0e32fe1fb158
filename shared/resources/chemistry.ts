import { defineShape, f } from '../schema/fields.js';

/**
 * One set of water-test readings taken on a visit. Every reading is optional: a technician
 * records what the test kit measured. Units are fixed so values compare across visits.
 */
export const ChemicalReadingShape = defineShape(
  'ChemicalReading',
  {
    freeChlorine: f.float().nullable().doc('Free chlorine, ppm (mg/L)'),
    totalChlorine: f.float().nullable().doc('Total chlorine, ppm (mg/L)'),
    ph: f.float().nullable().doc('pH, 0-14'),
    totalAlkalinity: f.float().nullable().doc('Total alkalinity, ppm as CaCO3'),
    calciumHardness: f.float().nullable().doc('Calcium hardness, ppm as CaCO3'),
    cyanuricAcid: f.float().nullable().doc('Cyanuric acid (stabilizer), ppm'),
    salt: f.float().nullable().doc('Salt, ppm'),
    phosphates: f.float().nullable().doc('Phosphates, ppb'),
    tds: f.float().nullable().doc('Total dissolved solids, ppm'),
    temperature: f.float().nullable().doc('Water temperature, degrees Fahrenheit'),
    takenAt: f.dateTime().nullable().doc('When the water was tested (device clock)'),
  },
  'Water chemistry readings of one visit; units are documented per field',
);
