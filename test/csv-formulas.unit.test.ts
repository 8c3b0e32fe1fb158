import { describe, expect, it } from 'vitest';
import { neutralizeFormula } from '../server/operations/csv.js';

/**
 * Formula injection in exports: a spreadsheet that reads a part of a cell as a cell of its own
 * (split on ";" in European locales, on tabs, on line breaks) must find no part it would run.
 */
function partsASpreadsheetMayRead(cell: string): string[] {
  return cell.split(/[;\t\r\n]/);
}

/** A part is run as a formula when its first character, past spaces and quotes, is one of = + - @. */
function runsAsFormula(part: string): boolean {
  return /^[ \u00a0"]*[=+\-@]/.test(part);
}

describe('neutralizeFormula', () => {
  it("guards every part of a joined list, not only the cell's start (the issue's tags)", () => {
    const tags = ['-2+3+cmd|calc', "@SUM(1+9)*cmd|' /C calc'!A0"].join(';');
    expect(neutralizeFormula(tags)).toBe("'-2+3+cmd|calc;'@SUM(1+9)*cmd|' /C calc'!A0");
  });

  it('guards a formula hidden after a ";" in a name, and after tabs and line breaks', () => {
    expect(neutralizeFormula('Smith;=1+cmd|calc!A0')).toBe("Smith;'=1+cmd|calc!A0");
    expect(neutralizeFormula('notes\t+1 pump')).toBe("notes\t'+1 pump");
    expect(neutralizeFormula('line one\n@SUM(A1)')).toBe("line one\n'@SUM(A1)");
    expect(neutralizeFormula('x; "=1+1"')).toBe(`x;' "=1+1"`);
  });

  it('leaves text that starts no formula as it was', () => {
    for (const text of ['vip;salt', 'Smith-Jones', 'Pump, -5% off', '', 'a;;b', '2+2=4']) expect(neutralizeFormula(text)).toBe(text);
  });

  it('leaves no part of any cell that a spreadsheet would run', () => {
    const triggers = ['=', '+', '-', '@', ' =', '"=', '\t', '\r', ';', '\n', 'a', ' '];
    const seen: string[] = [];
    // Every text of up to four of these pieces: each separator, prefix and trigger next to each other.
    const texts = [''];
    for (let length = 1; length <= 4; length++) {
      for (const text of texts.splice(0)) for (const piece of triggers) texts.push(text + piece), seen.push(text + piece);
    }
    for (const text of seen) {
      const parts = partsASpreadsheetMayRead(neutralizeFormula(text));
      expect(parts.filter(runsAsFormula), JSON.stringify(text)).toEqual([]);
      // A tab or carriage return opening the cell is guarded as before.
      if (/^[\t\r]/.test(text)) expect(neutralizeFormula(text).startsWith("'")).toBe(true);
    }
  });
});
