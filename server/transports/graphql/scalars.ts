import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { errors, jsonLimitProblem, MAX_JSON_NESTING } from '../../../shared/index.js';

/**
 * DateTime, Date and JSON. Values travel as strings (ISO 8601), exactly as they are stored and
 * replicated, so no layer converts to Date objects and back.
 */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Normalizes any valid ISO 8601 timestamp to UTC with milliseconds. */
export function parseDateTime(value: unknown): string {
  if (typeof value === 'string' && ISO_DATE_TIME.test(value)) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return new Date(time).toISOString();
  }
  throw errors.badInput(`DateTime must be an ISO 8601 timestamp such as 2026-11-22T14:00:00Z, got ${show(value)}`);
}

export function parseDate(value: unknown): string {
  if (typeof value === 'string' && ISO_DATE.test(value)) {
    const date = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(date.getTime()) && date.toISOString().startsWith(value)) return value;
  }
  throw errors.badInput(`Date must be a calendar date such as 2026-11-22, got ${show(value)}`);
}

function show(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 60) ?? String(value);
}

function stringLiteral(ast: ValueNode): unknown {
  return ast.kind === Kind.STRING ? ast.value : undefined;
}

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(stringLiteral(ast)),
});

export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: (value) => String(value),
  parseValue: parseDate,
  parseLiteral: (ast) => parseDate(stringLiteral(ast)),
});

function literalToJson(ast: ValueNode, variables?: Record<string, unknown> | null): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literalToJson(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value];
    default:
      throw errors.badInput('Unsupported JSON literal');
  }
}

/**
 * A JSON value from the variables is checked for nesting before anything walks it (a literal in
 * the document is bounded by the parser's own nesting limit, see limits.ts).
 */
function parseJson(value: unknown): unknown {
  const problem = jsonLimitProblem(value, { depth: MAX_JSON_NESTING });
  if (problem) throw errors.badInput(`JSON ${problem}: the server reads no deeper`);
  return value;
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: parseJson,
  parseLiteral: literalToJson,
});
