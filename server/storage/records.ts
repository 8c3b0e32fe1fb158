import {
  columnsOf,
  encodeValue,
  rowToRecord,
  type ColumnMapping,
  type RecordOf,
  type ResourceDef,
} from '../../shared/index.js';
import type { Queryable } from './db.js';
import { moneyIn, moneyOut } from './money-sql.js';

/**
 * Generic reads and writes of one resource's table, scoped by organization, built from the
 * shared column mapping. Resource-specific queries (search, lists) live in their own modules and
 * reuse `selectList` / `toRecord`.
 *
 * @example
 *   const customers = recordTable(customerResource)
 *   const c = await customers.insert(db, orgId, { id, lastName: 'Smith' })
 *   await customers.update(db, orgId, c.id, { notes: 'Gate code 1234' })
 */
export interface RecordTable<R extends ResourceDef> {
  readonly resource: R;
  /**
   * The columns for a select list (optionally prefixed with a table alias), money as its decimal
   * amount. `org`: SQL naming the rows' organization for that (a parameter such as `$1` converts
   * once per statement; by default each row's own org_id).
   */
  selectList(alias?: string, org?: string): string;
  /**
   * `expr AS "field", ...` whose `row_to_json` is the record exactly as `toRecord` would give it
   * once JSON-encoded (timestamps as ISO 8601 UTC with milliseconds, money as decimals), so
   * PostgreSQL can write the JSON of many records without the rows ever becoming JS objects.
   * `org`: the parameter holding the organization (pulls read one organization).
   */
  jsonSelectList(alias: string, org: string): string;
  toRecord(row: Record<string, unknown>): RecordOf<R>;
  insert(q: Queryable, orgId: string, values: Partial<RecordOf<R>> & { id: string }): Promise<RecordOf<R>>;
  /**
   * Inserts many records in one statement (each row still passes the table's triggers). Every
   * non-null column must be given; returns the stored records.
   */
  insertMany(q: Queryable, orgId: string, rows: readonly (Partial<RecordOf<R>> & { id: string })[]): Promise<RecordOf<R>[]>;
  /** Replaces every writable column of many live records in one statement; returns them. */
  updateMany(q: Queryable, orgId: string, rows: readonly (Partial<RecordOf<R>> & { id: string })[]): Promise<RecordOf<R>[]>;
  /** Applies the same changes to many live records; returns the ids changed. */
  patchMany(q: Queryable, orgId: string, ids: readonly string[], patch: Partial<RecordOf<R>>): Promise<string[]>;
  /** Tombstones many live records; returns the ids deleted. */
  softDeleteMany(q: Queryable, orgId: string, ids: readonly string[]): Promise<string[]>;
  /** Ids among `ids` that are live records of the organization. */
  existingIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>>;
  /** Inserts unless a row with this id exists (live or deleted); null when it existed. */
  insertIfAbsent(q: Queryable, orgId: string, values: Partial<RecordOf<R>> & { id: string }): Promise<RecordOf<R> | null>;
  /** Changes the given fields; returns null when the record is not in this organization. */
  update(q: Queryable, orgId: string, id: string, patch: Partial<RecordOf<R>>): Promise<RecordOf<R> | null>;
  findById(q: Queryable, orgId: string, id: string): Promise<RecordOf<R> | null>;
  /**
   * Marks a live record deleted (replicated tables only): the row stays as a tombstone so sync
   * delivers the delete. Returns the record as it was, or null when there was none.
   */
  softDelete(q: Queryable, orgId: string, id: string): Promise<RecordOf<R> | null>;
}

/**
 * A column as the JSON value our drivers' parsers produce (server/storage/types.ts). Only
 * timestamps differ from PostgreSQL's own JSON form (microseconds, "+00:00"); money is converted to
 * its decimal, which keeps the currency's scale ("12.50") but parses to the same number.
 */
function jsonValue(mapping: ColumnMapping, expression: string, org: string): string {
  if (mapping.money) return moneyOut(expression, org);
  return mapping.ddlType === 'timestamptz'
    ? `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : expression;
}

/** Every statement of a record table has the organization as its first parameter. */
const ORG = '$1';

/** A value written to a column: money arrives as a decimal and is stored in minor units. */
const written = (mapping: ColumnMapping, value: string) => (mapping.money ? moneyIn(value, ORG) : value);

/** createdAt/updatedAt are set by the table's trigger, never by a caller. */
const SERVER_STAMPED = new Set(['createdAt', 'updatedAt']);

/**
 * Which ids are live records, for several tables in one statement (one round trip, where a sync
 * push checks a visit's customer and its type): per lookup, in order, the ids found.
 */
export async function existingIdsOf(q: Queryable, orgId: string, lookups: readonly { table: { resource: Pick<ResourceDef, 'table' | 'collection'> }; ids: readonly string[] }[]): Promise<Set<string>[]> {
  const found = lookups.map(() => new Set<string>());
  const asked = lookups.flatMap((lookup, i) => (lookup.ids.length ? [{ ...lookup, i }] : []));
  if (!asked.length) return found;
  const selects = asked.map(({ table, i }, k) => {
    const liveOnly = table.resource.collection !== null ? ' and not _deleted' : '';
    return `select ${i} as lookup, id from ${table.resource.table} where org_id = $1 and id = any($${k + 2}::text[])${liveOnly}`;
  });
  const { rows } = await q.query<{ lookup: number; id: string }>(selects.join(' union all '), [orgId, ...asked.map((a) => a.ids)]);
  for (const row of rows) found[row.lookup]!.add(row.id);
  return found;
}

export function recordTable<R extends ResourceDef>(resource: R): RecordTable<R> {
  const mappings = columnsOf(resource);
  const byField = new Map(mappings.map((m) => [m.field, m]));
  const replicated = resource.collection !== null;
  const table = resource.table;
  const liveOnly = replicated ? ' and not _deleted' : '';

  function writable(values: Record<string, unknown>): ColumnMapping[] {
    return Object.keys(values).flatMap((field) => {
      const mapping = byField.get(field);
      if (!mapping) throw new Error(`${resource.name} has no field ${field}`);
      return SERVER_STAMPED.has(field) || values[field] === undefined ? [] : [mapping];
    });
  }

  async function insertRow(q: Queryable, orgId: string, values: object, onConflict: string) {
    const cols = writable(values as Record<string, unknown>);
    const params = [orgId, ...cols.map((m) => encodeValue(m, (values as Record<string, unknown>)[m.field]))];
    const names = ['org_id', ...cols.map((m) => `"${m.column}"`)].join(', ');
    const placeholders = ['$1', ...cols.map((m, i) => written(m, `$${i + 2}`))].join(', ');
    const { rows } = await q.query(
      `insert into ${table} (${names}) values (${placeholders})${onConflict} returning ${api.selectList(undefined, ORG)}`,
      params,
    );
    return rows[0] ? api.toRecord(rows[0]) : null;
  }

  // Columns a bulk statement writes (the trigger sets the timestamps), with their SQL types for
  // jsonb_to_recordset, which turns a JSON array of rows into typed columns in one parameter.
  const bulkColumns = mappings.filter((m) => !SERVER_STAMPED.has(m.field));
  // Money arrives as decimals (numeric), and is stored in minor units.
  const recordsetType = bulkColumns.map((m) => `"${m.column}" ${m.money ? 'numeric' : m.ddlType}`).join(', ');
  const bulkJson = (rows: readonly object[]) =>
    JSON.stringify(
      rows.map((row) => Object.fromEntries(bulkColumns.map((m) => [m.column, (row as Record<string, unknown>)[m.field] ?? null]))),
    );

  const api: RecordTable<R> = {
    resource,
    selectList: (alias, org) =>
      mappings
        .map((m) => {
          const column = `${alias ? `${alias}.` : ''}"${m.column}"`;
          return m.money ? `${moneyOut(column, org ?? `${alias ?? table}.org_id`)} as "${m.column}"` : column;
        })
        .join(', '),
    jsonSelectList: (alias, org) => mappings.map((m) => `${jsonValue(m, `${alias}."${m.column}"`, org)} as "${m.field}"`).join(', '),
    toRecord: (row) => rowToRecord<RecordOf<R>>(mappings, row),

    async insert(q, orgId, values) {
      return (await insertRow(q, orgId, values, ''))!;
    },

    async insertMany(q, orgId, rows) {
      if (!rows.length) return [];
      const names = bulkColumns.map((m) => `"${m.column}"`).join(', ');
      const values = bulkColumns.map((m) => written(m, `x."${m.column}"`)).join(', ');
      const { rows: stored } = await q.query(
        `insert into ${table} (org_id, ${names})
         select $1, ${values} from jsonb_to_recordset($2::jsonb) as x(${recordsetType})
         returning ${api.selectList(undefined, ORG)}`,
        [orgId, bulkJson(rows)],
      );
      return stored.map(api.toRecord);
    },

    async updateMany(q, orgId, rows) {
      if (!rows.length) return [];
      const sets = bulkColumns.filter((m) => m.field !== 'id').map((m) => `"${m.column}" = ${written(m, `x."${m.column}"`)}`).join(', ');
      const { rows: stored } = await q.query(
        `update ${table} t set ${sets}
           from jsonb_to_recordset($2::jsonb) as x(${recordsetType})
          where t.org_id = $1 and t.id = x.id${replicated ? ' and not t._deleted' : ''}
          returning ${api.selectList('t', ORG)}`,
        [orgId, bulkJson(rows)],
      );
      return stored.map(api.toRecord);
    },

    async patchMany(q, orgId, ids, patch) {
      const cols = writable(patch as Record<string, unknown>);
      if (!cols.length || !ids.length) return [];
      const sets = cols.map((m, i) => `"${m.column}" = ${written(m, `$${i + 3}`)}`).join(', ');
      const { rows } = await q.query<{ id: string }>(
        `update ${table} set ${sets} where org_id = $1 and id = any($2::text[])${liveOnly} returning id`,
        [orgId, ids, ...cols.map((m) => encodeValue(m, (patch as Record<string, unknown>)[m.field]))],
      );
      return rows.map((r) => r.id);
    },

    async softDeleteMany(q, orgId, ids) {
      if (!replicated) throw new Error(`${resource.name} does not replicate; it has no tombstones`);
      const { rows } = await q.query<{ id: string }>(
        `update ${table} set _deleted = true where org_id = $1 and id = any($2::text[]) and not _deleted returning id`,
        [orgId, ids],
      );
      return rows.map((r) => r.id);
    },

    async existingIds(q, orgId, ids) {
      if (!ids.length) return new Set();
      const { rows } = await q.query<{ id: string }>(
        `select id from ${table} where org_id = $1 and id = any($2::text[])${liveOnly}`,
        [orgId, ids],
      );
      return new Set(rows.map((r) => r.id));
    },

    async insertIfAbsent(q, orgId, values) {
      return insertRow(q, orgId, values, ' on conflict (org_id, id) do nothing');
    },

    async update(q, orgId, id, patch) {
      const cols = writable(patch as Record<string, unknown>);
      if (cols.length === 0) return api.findById(q, orgId, id);
      const sets = cols.map((m, i) => `"${m.column}" = ${written(m, `$${i + 3}`)}`).join(', ');
      const params = [orgId, id, ...cols.map((m) => encodeValue(m, (patch as Record<string, unknown>)[m.field]))];
      const { rows } = await q.query(
        `update ${table} set ${sets} where org_id = $1 and id = $2${liveOnly} returning ${api.selectList(undefined, ORG)}`,
        params,
      );
      return rows[0] ? api.toRecord(rows[0]) : null;
    },

    async softDelete(q, orgId, id) {
      if (!replicated) throw new Error(`${resource.name} does not replicate; it has no tombstones`);
      const { rows } = await q.query(
        `update ${table} set _deleted = true where org_id = $1 and id = $2 and not _deleted returning ${api.selectList(undefined, ORG)}`,
        [orgId, id],
      );
      return rows[0] ? api.toRecord(rows[0]) : null;
    },

    async findById(q, orgId, id) {
      const { rows } = await q.query(
        `select ${api.selectList(undefined, ORG)} from ${table} where org_id = $1 and id = $2${liveOnly}`,
        [orgId, id],
      );
      return rows[0] ? api.toRecord(rows[0]) : null;
    },
  };
  return api;
}
