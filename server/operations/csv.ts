import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * CSV output through csv-stringify (quoting of commas, quotes and newlines is the library's), with
 * a guard against formula injection: a text cell starting with =, +, -, @, tab or CR is prefixed
 * with an apostrophe so a spreadsheet shows it as text instead of running it. Numbers stay numbers
 * (a negative amount is not a formula).
 */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function cells<T>(columns: readonly CsvColumn<T>[], row: T): (string | number)[] {
  return columns.map((c) => {
    const value = c.value(row);
    return typeof value === 'string' ? neutralizeFormula(value) : (value ?? '');
  });
}

/** A readable stream of CSV text (header first) from rows as they are produced. */
export function csvStream<T>(rows: AsyncIterable<T>, columns: readonly CsvColumn<T>[]): Readable {
  async function* records() {
    for await (const row of rows) yield cells(columns, row);
  }
  return Readable.from(records()).pipe(stringify({ header: true, columns: columns.map((c) => c.header) }));
}
