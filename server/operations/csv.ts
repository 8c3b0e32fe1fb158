import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * CSV output through csv-stringify (quoting of commas, quotes and newlines is the library's), with
 * a guard against formula injection: every part of a text cell that a spreadsheet may read as a
 * cell of its own is prefixed with an apostrophe when it starts with =, +, -, or @, so the
 * spreadsheet shows it as text instead of running it. Numbers stay numbers (a negative amount is
 * not a formula).
 */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null;
}

/**
 * Where a spreadsheet may begin a cell inside our text: the text's start, and after a ";" (the list
 * separator of European locales, where a spreadsheet splits an unquoted CSV cell on it; lists are
 * exported joined with ";"), a tab (a tab-separated import) or a line break. A comma is no such
 * place: csv-stringify quotes every cell that holds one. Spaces and double quotes before the
 * character are skipped, as some spreadsheets drop them before reading the cell.
 */
const CELL_STARTING_A_FORMULA = /(^|[;\t\r\n])(?=[ \u00a0"]*[=+\-@])/g;
/** A tab or carriage return opening the text also makes some spreadsheets read on as a formula. */
const CONTROL_START = /^(?=[\t\r])/;

export function neutralizeFormula(text: string): string {
  return text.replace(CELL_STARTING_A_FORMULA, "$1'").replace(CONTROL_START, "'");
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
