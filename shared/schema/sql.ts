import type { FieldKind, FieldMeta, ScalarKind } from './fields.js';
import { toSnakeCase } from './naming.js';
import type { ResourceDef } from './resource.js';

/**
 * The SQL form of a resource: which column holds each field, of which type, and how a value is
 * encoded for a query parameter. Rows come back already typed (see server/storage/types.ts), so
 * decoding is only a rename.
 */
export interface ColumnMapping {
  readonly field: string;
  readonly column: string;
  /** The type as information_schema.columns.data_type reports it. */
  readonly sqlType: string;
  /** The type to write in DDL and casts. */
  readonly ddlType: string;
  readonly nullable: boolean;
  /** jsonb values are sent as JSON text: pg would turn a JS array into a PostgreSQL array. */
  readonly json: boolean;
  /**
   * Money: the column holds integer minor units of the organization's currency, the record the
   * decimal amount; storage converts between them (server/storage/money-sql.ts).
   */
  readonly money: boolean;
}

const SCALAR_SQL: Record<ScalarKind, [ddl: string, infoSchema: string]> = {
  id: ['text', 'text'],
  string: ['text', 'text'],
  int: ['integer', 'integer'],
  float: ['double precision', 'double precision'],
  money: ['bigint', 'bigint'],
  boolean: ['boolean', 'boolean'],
  dateTime: ['timestamptz', 'timestamp with time zone'],
  date: ['date', 'date'],
  json: ['jsonb', 'jsonb'],
};

function sqlTypeOf(kind: FieldKind): [ddl: string, infoSchema: string] {
  switch (kind.type) {
    case 'scalar':
      return SCALAR_SQL[kind.scalar];
    case 'enum':
      return ['text', 'text'];
    case 'object':
      return ['jsonb', 'jsonb'];
    case 'list':
      // Lists of plain strings are text[] so GIN indexes and `&&` / `@>` work on them.
      return isStringKind(kind.of) ? ['text[]', 'ARRAY'] : ['jsonb', 'jsonb'];
  }
}

function isStringKind(kind: FieldKind): boolean {
  return kind.type === 'enum' || (kind.type === 'scalar' && ['id', 'string'].includes(kind.scalar));
}

export function columnName(field: string, meta: FieldMeta): string {
  return meta.column ?? toSnakeCase(field);
}

export function columnsOf(resource: ResourceDef): ColumnMapping[] {
  return Object.entries(resource.fields).map(([field, { meta }]) => {
    const [ddlType, sqlType] = sqlTypeOf(meta.kind);
    return {
      field,
      column: columnName(field, meta),
      sqlType,
      ddlType,
      nullable: meta.nullable,
      json: ddlType === 'jsonb',
      money: meta.kind.type === 'scalar' && meta.kind.scalar === 'money',
    };
  });
}

/** Encodes one field value as a query parameter. */
export function encodeValue(mapping: ColumnMapping, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return mapping.json ? JSON.stringify(value) : value;
}

/** Renames a row's columns to the resource's field names; unknown columns are dropped. */
export function rowToRecord<T>(mappings: readonly ColumnMapping[], row: Record<string, unknown>): T {
  const record: Record<string, unknown> = {};
  for (const m of mappings) record[m.field] = row[m.column] ?? null;
  return record as T;
}
