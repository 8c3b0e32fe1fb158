import type { FieldKind, FieldMap, FieldMeta } from './fields.js';
import { ID_MAX_LENGTH } from './ids.js';
import type { ResourceDef } from './resource.js';

/**
 * The RxDB form of a resource: a JSON schema for `addCollections`. RxDB adds `_deleted`,
 * `_rev`, `_meta` and `_attachments` itself, so they are not listed.
 */
export interface RxJsonSchemaLike {
  version: number;
  title: string;
  description?: string;
  primaryKey: string;
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
  /** Indexes of the replica (each a list of fields; RxDB adds the primary key). */
  indexes?: string[][];
  additionalProperties: false;
}

export type JsonSchema = Record<string, unknown>;

/**
 * Ids are indexed by RxDB, which needs a bound on their length. Only the bound is in the schema a
 * device holds; the characters are checked by the validators (shared/schema/ids.ts).
 */
function scalarSchema(kind: FieldKind & { type: 'scalar' }): JsonSchema {
  switch (kind.scalar) {
    case 'id':
      return { type: 'string', maxLength: ID_MAX_LENGTH };
    case 'string':
      return { type: 'string' };
    case 'int':
      return { type: 'integer' };
    case 'float':
    case 'money':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'dateTime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'json':
      return {};
  }
}

function kindSchema(kind: FieldKind): JsonSchema {
  switch (kind.type) {
    case 'scalar':
      return scalarSchema(kind);
    case 'enum':
      return { type: 'string', enum: [...kind.values] };
    case 'object':
      return objectSchema(kind.shape.fields);
    case 'list':
      return { type: 'array', items: kindSchema(kind.of) };
  }
}

/** Adds null to a schema's type (and enum), as JSON Schema spells "nullable". */
function withNull(schema: JsonSchema): JsonSchema {
  if (!('type' in schema)) return schema;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const nullable: JsonSchema = { ...schema, type: [...types, 'null'] };
  if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
  return nullable;
}

function fieldSchema(meta: FieldMeta): JsonSchema {
  const schema: JsonSchema = { ...kindSchema(meta.kind) };
  if (meta.maxLength !== undefined && schema.type === 'string') schema.maxLength = meta.maxLength;
  if (meta.values) schema.enum = [...meta.values];
  if (meta.description) schema.description = meta.description;
  return meta.nullable ? withNull(schema) : schema;
}

function objectSchema(fields: FieldMap): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, { meta }] of Object.entries(fields)) properties[name] = fieldSchema(meta);
  return { type: 'object', properties, required: requiredOf(fields) };
}

function requiredOf(fields: FieldMap): string[] {
  return Object.entries(fields)
    .filter(([, { meta }]) => !meta.nullable)
    .map(([name]) => name);
}

export function rxSchemaOf(resource: ResourceDef, version = 0): RxJsonSchemaLike {
  const { properties } = objectSchema(resource.fields) as { properties: Record<string, JsonSchema> };
  return {
    version,
    title: resource.collection ?? resource.name,
    description: resource.description,
    primaryKey: 'id',
    type: 'object',
    properties,
    required: requiredOf(resource.fields),
    additionalProperties: false,
  };
}
