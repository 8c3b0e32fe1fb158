/**
 * Money in SQL: a money column holds integer minor units of the organization's currency; a record,
 * a JSON document and a query parameter carry the decimal amount. These expressions convert, with
 * the organization's currency exponent (`currency_exponent`, migration 0022) read by a scalar
 * subquery on the organization: given a parameter (`$1`, the organization of the statement), it is
 * uncorrelated, evaluated once per statement, however many rows it converts; given a column
 * (`t.org_id`), it is looked up per row (row reads of a page, never a pull).
 *
 * Reading multiplies by the minor unit as a numeric of the currency's own scale (0.01, 1, 0.001),
 * so PostgreSQL writes 12.50, 1250 and 12.345 in JSON, as numeric(12,2) wrote 12.50 before. Writing
 * divides by it and rounds half away from zero (round(numeric)), the rule of shared/money.ts.
 *
 * @example
 *   `select ${moneyOut('q.total', '$1')} as total from quotes q where q.org_id = $1`
 */
export function minorUnitOf(org: string): string {
  return `(select ('1e-' || currency_exponent(o.currency))::numeric from organizations o where o.id = ${org})`;
}

/** The decimal amount of a minor-units column. */
export function moneyOut(column: string, org: string): string {
  return `(${column} * ${minorUnitOf(org)})`;
}

/** Minor units of a decimal amount (a parameter or a numeric column). */
export function moneyIn(decimal: string, org: string): string {
  return `round((${decimal})::numeric / ${minorUnitOf(org)})::bigint`;
}
