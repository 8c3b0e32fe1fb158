import * as z from 'zod';
import type { Field, FieldKind, FieldMap, FieldMeta, InferFields, NumberBounds, ShapeDef } from './fields.js';
import { idValidator } from './ids.js';
import { freeJsonValidator } from './json-limits.js';
import { writableFields, type InputOptions, type RecordOf, type ResourceDef } from './resource.js';

/**
 * A zod object validator whose output is typed as `T`. The fields are derived from a resource at
 * run time, so zod cannot infer them; this states what they are, once, where they are derived.
 */
export type TypedObjectValidator<T> = z.ZodObject & { _zod: { output: T } };

/**
 * Runtime validators derived from the shared schema (zod). Untrusted records, such as documents
 * pushed by a device, are checked with these once, at the edge.
 */

function scalarValidator(kind: FieldKind & { type: 'scalar' }): z.ZodType {
  switch (kind.scalar) {
    case 'id':
      return idValidator();
    case 'string':
      return z.string();
    case 'int':
      return z.number().int().min(-2147483648).max(2147483647);
    case 'float':
      return z.number().finite();
    case 'money':
      // At most ten digits before the point: in minor units (up to three decimals) still far below 2^53.
      return z.number().finite().min(-9_999_999_999.999).max(9_999_999_999.999);
    case 'boolean':
      return z.boolean();
    case 'dateTime':
      return z.iso.datetime({ offset: true });
    case 'date':
      return z.iso.date();
    case 'json':
      return freeJsonValidator();
  }
}

function kindValidator(kind: FieldKind): z.ZodType {
  switch (kind.type) {
    case 'scalar':
      return scalarValidator(kind);
    case 'enum':
      return z.enum(kind.values as [string, ...string[]]);
    case 'object':
      return shapeValidator(kind.shape.fields);
    case 'list':
      return z.array(kindValidator(kind.of));
  }
}

/** A text field's validator: one of its values when it lists them. */
function valueValidator(meta: FieldMeta): z.ZodType {
  return meta.values ? z.enum(meta.values as [string, ...string[]]) : kindValidator(meta.kind);
}

/** "must be between 0 and 14": one message for either bound, so the whole allowed span is named. */
export function boundsText({ min, max, exclusiveMin }: NumberBounds): string {
  const low = min === undefined ? null : exclusiveMin ? `greater than ${min}` : `at least ${min}`;
  if (low && max !== undefined) return exclusiveMin ? `must be ${low} and at most ${max}` : `must be between ${min} and ${max}`;
  return low ? `must be ${low}` : `must be at most ${max}`;
}

function bounded(validator: z.ZodType, bounds: NumberBounds | undefined): z.ZodType {
  if (!bounds || !(validator instanceof z.ZodNumber)) return validator;
  const message = boundsText(bounds);
  let number: z.ZodNumber = validator;
  if (bounds.min !== undefined) number = bounds.exclusiveMin ? number.gt(bounds.min, message) : number.min(bounds.min, message);
  if (bounds.max !== undefined) number = number.max(bounds.max, message);
  return number;
}

/** A field's validator: its kind, one of its values when it lists them, within its bounds when it has them. */
function baseValidator(meta: FieldMeta): z.ZodType {
  return bounded(valueValidator(meta), meta.bounds);
}

function fieldValidator(meta: FieldMeta): z.ZodType {
  let validator = baseValidator(meta);
  if (meta.maxLength !== undefined && validator instanceof z.ZodString) {
    validator = validator.max(meta.maxLength);
  }
  return meta.nullable ? validator.nullable().optional() : validator;
}

/** A strict object validator: unknown keys are an error, nullable fields may be omitted. */
export function shapeValidator(fields: FieldMap): z.ZodObject {
  const entries = Object.entries(fields).map(([name, { meta }]) => [name, fieldValidator(meta)]);
  return z.strictObject(Object.fromEntries(entries));
}

/** One field's validator (its bounds, its length), typed as its value; a nullable field may be left out. */
export function fieldValidatorOf<T>(field: Field<T>): z.ZodType<T | undefined> {
  return fieldValidator(field.meta) as z.ZodType<T | undefined>;
}

/** A shape's validator, typed as the shape's object (its nullable fields may be left out: read them with `?? null`). */
export function shapeValidatorOf<F extends FieldMap>(shape: ShapeDef<F>): TypedObjectValidator<InferFields<F>> {
  return shapeValidator(shape.fields) as TypedObjectValidator<InferFields<F>>;
}

const recordValidators = new WeakMap<ResourceDef, z.ZodObject>();

/**
 * Validator of a whole record of a resource, built once per resource: building one (and zod's
 * first parse, which compiles it) costs far more than a parse, and the SDK checks every local
 * write with it (recording 1,000 visits spent about 1 s rebuilding it).
 */
export function recordValidator(resource: ResourceDef): z.ZodObject {
  let validator = recordValidators.get(resource);
  if (!validator) {
    validator = shapeValidator(resource.fields);
    recordValidators.set(resource, validator);
  }
  return validator;
}

/**
 * Validator of an input that creates (`required` given) or changes a resource: the same writable
 * fields as resourceInputSDL. Omitted fields stay undefined (unchanged); null clears a nullable
 * field; a non-null text field must not be blank.
 */
export function inputValidator<R extends ResourceDef>(resource: R, options: InputOptions = {}): TypedObjectValidator<Partial<RecordOf<R>>> {
  const required = new Set(options.required ?? []);
  const entries = writableFields(resource, options).map(([name, meta]) => {
    let validator = baseValidator(meta);
    if (validator instanceof z.ZodString) {
      let text: z.ZodString = validator;
      if (meta.maxLength !== undefined) text = text.max(meta.maxLength);
      if (!meta.nullable) text = text.trim().min(1, 'must not be empty');
      validator = text;
    }
    if (meta.nullable) validator = validator.nullable();
    return [name, required.has(name) ? validator : validator.optional()];
  });
  return z.strictObject(Object.fromEntries(entries)) as TypedObjectValidator<Partial<RecordOf<R>>>;
}
