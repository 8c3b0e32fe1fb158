import type { FieldKind, FieldMap, FieldMeta, ShapeDef } from './fields.js';
import { writableFields, type InputOptions, type ResourceDef } from './resource.js';

/**
 * The GraphQL form of the shared schema: SDL for every enum, embedded shape (as an object type
 * and an input type) and resource type. Operation SDL lives with each transport module.
 */

const SCALAR_GRAPHQL = {
  id: 'ID',
  string: 'String',
  int: 'Int',
  float: 'Float',
  money: 'Float',
  boolean: 'Boolean',
  dateTime: 'DateTime',
  date: 'Date',
  json: 'JSON',
} as const;

type Mode = 'output' | 'input';

function kindType(kind: FieldKind, mode: Mode): string {
  switch (kind.type) {
    case 'scalar':
      return SCALAR_GRAPHQL[kind.scalar];
    case 'enum':
      return kind.name;
    case 'object':
      return mode === 'input' ? `${kind.shape.name}Input` : kind.shape.name;
    case 'list':
      return `[${kindType(kind.of, mode)}!]`;
  }
}

/** The SDL type of a field, e.g. `[ServicePhoto!]!` or `String`. */
export function graphqlTypeOf(meta: FieldMeta, mode: Mode = 'output'): string {
  const base = kindType(meta.kind, mode);
  return meta.nullable ? base : `${base}!`;
}

function describe(text: string | undefined, indent: string): string {
  return text ? `${indent}"""${text.replace(/"""/g, '\\"""')}"""\n` : '';
}

function fieldLines(fields: FieldMap, mode: Mode): string {
  return Object.entries(fields)
    .filter(([, { meta }]) => !meta.internal && !(mode === 'input' && meta.owner === 'server'))
    .map(([name, { meta }]) => `${describe(meta.description, '  ')}  ${name}: ${graphqlTypeOf(meta, mode)}`)
    .join('\n');
}

function shapeSDL(shape: ShapeDef): string {
  return [
    `${describe(shape.description, '')}type ${shape.name} {\n${fieldLines(shape.fields, 'output')}\n}`,
    `input ${shape.name}Input {\n${fieldLines(shape.fields, 'input')}\n}`,
  ].join('\n\n');
}

function resourceSDL(resource: ResourceDef): string {
  const relations = Object.entries(resource.relations)
    .map(([name, type]) => `  ${name}: ${type}`)
    .join('\n');
  const body = [fieldLines(resource.fields, 'output'), relations].filter(Boolean).join('\n');
  return `${describe(resource.description, '')}type ${resource.name} {\n${body}\n}`;
}

/** Walks every field kind reachable from a field map (nested shapes and list items included). */
function* kindsOf(fields: FieldMap): Generator<FieldKind> {
  for (const { meta } of Object.values(fields)) yield* kindTree(meta.kind);
}

function* kindTree(kind: FieldKind): Generator<FieldKind> {
  yield kind;
  if (kind.type === 'list') yield* kindTree(kind.of);
  if (kind.type === 'object') yield* kindsOf(kind.shape.fields);
}

function collectNamed(resources: readonly ResourceDef[]) {
  const enums = new Map<string, readonly string[]>();
  const shapes = new Map<string, ShapeDef>();
  for (const resource of resources) {
    for (const kind of kindsOf(resource.fields)) {
      if (kind.type === 'enum') registerOnce(enums, kind.name, kind.values, sameValues);
      if (kind.type === 'object') registerOnce(shapes, kind.shape.name, kind.shape, Object.is);
    }
  }
  return { enums, shapes };
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Two definitions under one GraphQL name must be the same definition. */
function registerOnce<T>(map: Map<string, T>, name: string, value: T, same: (a: T, b: T) => boolean) {
  const existing = map.get(name);
  if (existing !== undefined && !same(existing, value)) {
    throw new Error(`Two different GraphQL types are named ${name}`);
  }
  map.set(name, value);
}

/** SDL of the scalars, enums, shapes and resource types of the shared schema. */
export function sharedTypeDefs(resources: readonly ResourceDef[]): string {
  const { enums, shapes } = collectNamed(resources);
  return [
    '"""ISO 8601 UTC timestamp, e.g. 2026-11-22T14:00:00.000Z"""\nscalar DateTime',
    '"""Calendar date, YYYY-MM-DD"""\nscalar Date',
    '"""Any JSON value"""\nscalar JSON',
    ...[...enums].map(([name, values]) => `enum ${name} {\n  ${values.join('\n  ')}\n}`),
    ...[...shapes.values()].map(shapeSDL),
    ...resources.map(resourceSDL),
  ].join('\n\n');
}

/**
 * SDL of an input type that creates or changes a resource, so every writable field of the shared
 * definition is accepted without being listed again. Only `required` fields are non-null.
 *
 * @example resourceInputSDL('UpdateCustomerInput', customerResource)
 */
export function resourceInputSDL(typeName: string, resource: ResourceDef, options: InputOptions = {}): string {
  const required = new Set(options.required ?? []);
  const lines = writableFields(resource, options).map(([name, meta]) => {
    const type = graphqlTypeOf({ ...meta, nullable: !required.has(name) }, 'input');
    return `${describe(meta.description, '  ')}  ${name}: ${type}`;
  });
  return `input ${typeName} {\n${lines.join('\n')}\n}`;
}
