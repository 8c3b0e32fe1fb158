import type { FieldKind, FieldMap } from './fields.js';
import type { ResourceDef } from './resource.js';

/**
 * The CSV form of a resource, for exports: one column per public field, in definition order,
 * between `id` and the timestamps. A cell holds one value, so:
 *   - a list of scalars is joined with ";" (tags: "vip;salt");
 *   - an embedded object is spread into a column per field, named "object.field";
 *   - lists of objects (photos, bodies of water) and free JSON are left out;
 *   - booleans are "true" / "false", numbers stay numbers, null is an empty cell.
 * Adding a field to a resource adds its column; nothing here lists fields by hand.
 */
export interface CsvField {
  header: string;
  value: (row: Record<string, unknown>) => string | number | null;
}

const LAST = ['createdAt', 'updatedAt'];

export function csvColumnsOf(resource: ResourceDef): CsvField[] {
  const fields = Object.entries(resource.fields);
  return columnsOf([...fields.filter(([name]) => !LAST.includes(name)), ...fields.filter(([name]) => LAST.includes(name))], []);
}

function columnsOf(fields: [string, FieldMap[string]][], parents: string[]): CsvField[] {
  return fields.flatMap(([name, { meta }]) => {
    if (meta.internal) return [];
    const path = [...parents, name];
    const kind = meta.kind;
    if (kind.type === 'object') return parents.length ? [] : columnsOf(Object.entries(kind.shape.fields), path);
    if (kind.type === 'list' && kind.of.type === 'object') return [];
    if (kind.type === 'scalar' && kind.scalar === 'json') return [];
    return [cell(path.join('.'), path, kind)];
  });
}

function cell(header: string, path: string[], kind: FieldKind): CsvField {
  return { header, value: (row) => cellValue(valueAt(row, path), kind) };
}

function valueAt(row: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = row;
  for (const key of path) value = value == null ? null : (value as Record<string, unknown>)[key];
  return value;
}

function cellValue(value: unknown, kind: FieldKind): string | number | null {
  if (value == null) return null;
  if (kind.type === 'list') return (value as unknown[]).join(';');
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'number' ? value : String(value);
}
