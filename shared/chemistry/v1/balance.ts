/**
 * Formula version 1: the saturation indices. Pure arithmetic; each formula's source is in
 * shared/chemistry/README.md.
 */

/**
 * Carbonate alkalinity: total alkalinity less the part cyanurate and borate carry at this pH
 * (PoolMath's constants; at pH 7.8 the CYA share is 0.35, Taylor's table value).
 */
export function carbonateAlkalinity(ph: number, ta: number, cya: number, borates: number): number {
  return ta - (0.38772 * cya) / (1 + 10 ** (6.83 - ph)) - (4.63 * borates) / (1 + 10 ** (9.11 - ph));
}

/**
 * Ionic strength from calcium, alkalinity and the sodium chloride beyond what calcium chloride
 * brought (`extraNaCl`, ppm).
 */
export function ionicStrength(ch: number, ta: number, extraNaCl: number): number {
  return (1.5 * ch + ta) / 50045 + Math.max(0, extraNaCl) / 58440;
}

/** Salt beyond what calcium chloride accounts for (PoolMath: Salt − 1.1678·CH). */
export function extraSaltFromSalt(salt: number, ch: number): number {
  return Math.max(0, salt - 1.1678 * ch);
}

/** The same from TDS when no salt was measured (PoolMath: TDS − (1.109·CH + 1.679·CarbAlk + CYA)). */
export function extraSaltFromTds(tds: number, ch: number, carbAlk: number, cya: number): number {
  return Math.max(0, tds - (1.109 * ch + 1.679 * carbAlk + cya));
}

export const fahrenheitToCelsius = (f: number) => ((f - 32) * 5) / 9;

/** CSI = pH − 11.677 + log10(CH) + log10(CarbAlk) − 2.56·√I/(1+1.65·√I) − 1412.5/(T°C+273.15) + 4.7375 */
export function csiOf(ph: number, ch: number, carbAlk: number, ionic: number, temperatureF: number): number {
  const rootI = Math.sqrt(ionic);
  return ph - 11.677 + Math.log10(ch) + Math.log10(carbAlk) - (2.56 * rootI) / (1 + 1.65 * rootI) - 1412.5 / (fahrenheitToCelsius(temperatureF) + 273.15) + 4.7375;
}

/** The temperature factor table (°F, factor) as printed in New York's sanitary code, section 6-1.30. */
const TEMPERATURE_FACTORS: readonly (readonly [number, number])[] = [
  [32, 0.0], [37, 0.1], [46, 0.2], [53, 0.3], [60, 0.4], [66, 0.5], [76, 0.6], [84, 0.7], [94, 0.8], [105, 0.9], [128, 1.0],
];

/** The table's temperature factor, interpolated between its rows (and held at its ends). */
export function temperatureFactor(temperatureF: number): number {
  const rows = TEMPERATURE_FACTORS;
  if (temperatureF <= rows[0]![0]) return rows[0]![1];
  for (let i = 1; i < rows.length; i++) {
    const [t1, f1] = rows[i]!;
    if (temperatureF <= t1) {
      const [t0, f0] = rows[i - 1]!;
      return f0 + ((f1 - f0) * (temperatureF - t0)) / (t1 - t0);
    }
  }
  return rows[rows.length - 1]![1];
}

/** The TDS constant: 12.1 up to 1,000 ppm, 12.2 up to 2,000, 12.3 above. */
export function tdsConstant(tds: number): number {
  return tds <= 1000 ? 12.1 : tds <= 2000 ? 12.2 : 12.3;
}

/**
 * LSI = pH + TF + CF + AF − C, with the table's calcium and alkalinity factors in their continuous
 * forms (CF = log10(CH) − 0.4, AF = log10(CarbAlk): every printed entry within 0.025, the
 * table's own rounding).
 */
export function lsiOf(ph: number, ch: number, carbAlk: number, temperatureF: number, constant: number): number {
  return ph + temperatureFactor(temperatureF) + (Math.log10(ch) - 0.4) + Math.log10(carbAlk) - constant;
}
