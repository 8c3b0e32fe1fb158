import { containsPattern, escapeLike, type Params } from './params.js';

/**
 * Filter conditions as data, and their SQL. Operations validate the caller's filter input into
 * these shapes; list queries turn them into WHERE fragments. Several operators in one condition
 * all apply (AND).
 */

/** IdFilter / EnumFilter. `equals` is a synonym of `eq` (the spec uses both spellings). */
export interface IdCondition {
  eq?: string | null;
  in?: string[] | null;
  notIn?: string[] | null;
}

/** Case-sensitive equality; `contains` and `startsWith` ignore case. */
export interface StringCondition extends IdCondition {
  contains?: string | null;
  startsWith?: string | null;
}

export interface BooleanCondition {
  eq?: boolean | null;
}

/** Bounds are inclusive; values are ISO timestamps or dates, compared by the column's type. */
export interface RangeCondition {
  eq?: string | null;
  gte?: string | null;
  lte?: string | null;
  gt?: string | null;
  lt?: string | null;
}

/** Conditions on a text[] column such as customer tags. */
export interface ListCondition {
  has?: string | null;
  hasSome?: string[] | null;
  hasEvery?: string[] | null;
  isEmpty?: boolean | null;
}

const defined = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

export function idConditionSql(column: string, c: IdCondition, p: Params): string[] {
  const out: string[] = [];
  if (defined(c.eq)) out.push(`${column} = ${p.add(c.eq)}`);
  if (defined(c.in)) out.push(`${column} = any(${p.add(c.in)}::text[])`);
  if (defined(c.notIn)) out.push(`not (${column} = any(${p.add(c.notIn)}::text[]))`);
  return out;
}

export function stringConditionSql(column: string, c: StringCondition, p: Params): string[] {
  const out = idConditionSql(column, c, p);
  if (defined(c.contains)) out.push(`lower(${column}) like ${p.add(containsPattern(c.contains))}`);
  if (defined(c.startsWith)) {
    out.push(`lower(${column}) like ${p.add(`${escapeLike(c.startsWith.toLowerCase())}%`)}`);
  }
  return out;
}

export function booleanConditionSql(column: string, c: BooleanCondition, p: Params): string[] {
  return defined(c.eq) ? [`${column} is not distinct from ${p.add(c.eq)}`] : [];
}

/** `sqlType` is the cast applied to each bound (timestamptz or date). */
export function rangeConditionSql(column: string, c: RangeCondition, p: Params, sqlType: string): string[] {
  const ops: [keyof RangeCondition, string][] = [['eq', '='], ['gte', '>='], ['lte', '<='], ['gt', '>'], ['lt', '<']];
  return ops.flatMap(([key, op]) => (defined(c[key]) ? [`${column} ${op} ${p.add(c[key])}::${sqlType}`] : []));
}

export function listConditionSql(column: string, c: ListCondition, p: Params): string[] {
  const out: string[] = [];
  if (defined(c.has)) out.push(`${column} @> array[${p.add(c.has)}]::text[]`);
  if (defined(c.hasSome)) out.push(`${column} && ${p.add(c.hasSome)}::text[]`);
  if (defined(c.hasEvery)) out.push(`${column} @> ${p.add(c.hasEvery)}::text[]`);
  if (defined(c.isEmpty)) {
    out.push(c.isEmpty ? `coalesce(cardinality(${column}), 0) = 0` : `cardinality(${column}) > 0`);
  }
  return out;
}

/**
 * Every word must occur somewhere in the search text. Trying each word against the whole text
 * covers "first last", "last first" and address fragments in one rule; each word is its own
 * LIKE so the trigram index can intersect them.
 */
export function searchWordsSql(docExpr: string, search: string, p: Params): string[] {
  return searchWords(search).map((word) => `${docExpr} like ${p.add(containsPattern(word))}`);
}

/** The distinct words of a search, at most 8 (more add nothing but work). */
export function searchWords(search: string): string[] {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return [...new Set(words)].slice(0, 8);
}
