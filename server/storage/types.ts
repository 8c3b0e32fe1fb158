import pg from 'pg';

/**
 * Value parsers shared by both drivers, so a row reads the same from PGlite and PostgreSQL:
 * - int8 and numeric -> number (our counters and money fit a double; pg would give strings)
 * - timestamptz -> ISO 8601 UTC string (what the API and RxDB documents carry)
 * - date -> 'YYYY-MM-DD' string (a calendar date has no time zone to shift it)
 * jsonb, booleans, int4, float8 and text[] already match in both drivers.
 */
const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMPTZ: 1184 } as const;

const parseTimestamp = pg.types.getTypeParser(OID.TIMESTAMPTZ) as (value: string) => Date;

export const valueParsers: Record<number, (value: string) => unknown> = {
  [OID.INT8]: Number,
  [OID.NUMERIC]: Number,
  [OID.DATE]: (value) => value,
  [OID.TIMESTAMPTZ]: (value) => parseTimestamp(value).toISOString(),
};
