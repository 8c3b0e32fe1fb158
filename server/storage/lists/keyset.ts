import type { Queryable } from '../db.js';
import type { Params } from './params.js';

/**
 * Keyset ("seek") pagination: a page is the rows after (or before) the last row seen, in a total
 * order of sort keys ending with the id. Unlike OFFSET, a page stays correct while rows are
 * inserted or deleted, and each page costs the same however deep it is.
 */

/** One ORDER BY term. `expr` is never NULL (nullable columns are coalesced) so `=` and `<` work. */
export interface SortKey {
  readonly expr: string;
  readonly type: 'text' | 'timestamptz' | 'date' | 'bigint';
  readonly desc: boolean;
}

export interface PageWindow {
  /** Rows wanted on the page. */
  readonly size: number;
  /** Sort-key values of the row the page starts after (forward) or ends before (backward). */
  readonly from: readonly string[] | null;
  /** True for `last`/`before`: the page ends at `from`, read from the far end. */
  readonly backward: boolean;
}

export interface PageRows<T> {
  /** In sort order, whichever direction was read. */
  readonly rows: { record: T; keys: string[] }[];
  /** Whether more rows lie beyond the page in the direction of reading. */
  readonly more: boolean;
}

export interface PageQuery<T> {
  readonly select: string;
  /** FROM clause body, e.g. `customers c`. */
  readonly from: string;
  /** Conditions joined with AND; the first parameters are already in `params`. */
  readonly where: readonly string[];
  readonly params: Params;
  readonly keys: readonly SortKey[];
  readonly window: PageWindow;
  readonly toRecord: (row: Record<string, unknown>) => T;
}

export async function readPage<T>(q: Queryable, query: PageQuery<T>): Promise<PageRows<T>> {
  const { keys, window, params } = query;
  const where = [...query.where];
  if (window.from) where.push(seekCondition(keys, window.from, window.backward, params));
  const order = orderBy(keys, window);
  // Keys are read back as text: timestamps keep their microseconds, so the next page starts
  // exactly after the last row instead of repeating or skipping rows that share a millisecond.
  const keyColumns = keys.map((k, i) => `(${k.expr})::text as "_k${i}"`).join(', ');
  const sql =
    `select ${query.select}, ${keyColumns} from ${query.from}` +
    (where.length ? ` where ${where.join(' and ')}` : '') +
    ` order by ${order} limit ${params.add(window.size + 1)}`;
  const { rows } = await q.query<Record<string, unknown>>(sql, params.values);
  const more = rows.length > window.size;
  const page = rows.slice(0, window.size).map((row) => ({
    record: query.toRecord(row),
    keys: keys.map((_, i) => row[`_k${i}`] as string),
  }));
  if (window.backward) page.reverse();
  return { rows: page, more };
}

/**
 * The next `rows` rows of `table` in the page's order from where the page starts, as a FROM body
 * for readPage: a page whose matches are common is found in them, by one walk of the sort index,
 * instead of gathering every match and sorting it. Fewer matches than a page among them says
 * nothing about the rest: the caller then reads the page the ordinary way.
 */
export function nextRowsInOrder(table: string, where: readonly string[], keys: readonly SortKey[], window: PageWindow, params: Params, rows: number): string {
  const conditions = [...where];
  if (window.from) conditions.push(seekCondition(keys, window.from, window.backward, params));
  const alias = table.split(' ').at(-1)!;
  return `(select * from ${table} where ${conditions.join(' and ')} order by ${orderBy(keys, window)} limit ${params.add(rows)}) ${alias}`;
}

function orderBy(keys: readonly SortKey[], window: PageWindow): string {
  return keys.map((k) => `${k.expr} ${k.desc !== window.backward ? 'desc' : 'asc'}`).join(', ');
}

/**
 * Rows strictly beyond `values` in reading order. When every key runs the same way a row
 * comparison is used, which PostgreSQL answers with one index range; mixed directions need the
 * expanded form (a > x) or (a = x and b > y) ...
 */
function seekCondition(keys: readonly SortKey[], values: readonly string[], backward: boolean, p: Params): string {
  const placeholders = keys.map((k, i) => `${p.add(values[i])}::${k.type}`);
  const ascending = (k: SortKey) => k.desc === backward;
  if (keys.every((k) => ascending(k) === ascending(keys[0]!))) {
    const op = ascending(keys[0]!) ? '>' : '<';
    return `(${keys.map((k) => k.expr).join(', ')}) ${op} (${placeholders.join(', ')})`;
  }
  const terms = keys.map((key, i) => {
    const equal = keys.slice(0, i).map((k, j) => `${k.expr} = ${placeholders[j]}`);
    return [...equal, `${key.expr} ${ascending(key) ? '>' : '<'} ${placeholders[i]}`].join(' and ');
  });
  return `((${terms.join(') or (')}))`;
}

/** Counts the rows matching a list's conditions (for totalCount). */
export async function countRows(q: Queryable, from: string, where: readonly string[], params: Params): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `select count(*)::int8 as n from ${from}${where.length ? ` where ${where.join(' and ')}` : ''}`,
    params.values,
  );
  return rows[0]!.n;
}
