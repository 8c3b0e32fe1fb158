/**
 * Field builders: the vocabulary every resource in `shared/resources` is written in.
 *
 * A field carries its value kind (from which the TypeScript type, RxDB JSON schema, GraphQL type,
 * SQL column type and runtime validator are all derived) plus the sync metadata
 * the server merges by: who owns the field and how concurrent edits merge.
 *
 * @example
 *   const freeChlorine = f.float().nullable().doc('Free chlorine, ppm')
 *   //    ^? Field<number | null>
 */

/**
 * Scalar kinds. `money` is a decimal Float at the organization's currency precision in GraphQL, JS
 * and JSON, and a bigint of the currency's minor units in SQL (inside jsonb it stays the decimal).
 */
export type ScalarKind =
  | 'id'
  | 'string'
  | 'int'
  | 'float'
  | 'money'
  | 'boolean'
  | 'dateTime'
  | 'date'
  | 'json';

/**
 * Who may change a field when edits meet on the server (the server's merge is built on this).
 * - technician: field work (readings, notes, times); the device's value wins a clash.
 * - office: billing and administration; the office's value wins a clash.
 * - server: computed or assigned by the server only; client values are ignored.
 * - shared: either side; a clash resolves to the newest write and is logged.
 */
export type FieldOwner = 'technician' | 'office' | 'server' | 'shared';

/** How concurrent edits of one field combine in a three-way merge. */
export type MergeRule = 'value' | 'set' | 'unionById';

export interface ShapeDef<F extends FieldMap = FieldMap> {
  readonly name: string;
  readonly fields: F;
  readonly description?: string;
}

export type FieldKind =
  | { readonly type: 'scalar'; readonly scalar: ScalarKind }
  | { readonly type: 'enum'; readonly name: string; readonly values: readonly string[] }
  | { readonly type: 'object'; readonly shape: ShapeDef }
  | { readonly type: 'list'; readonly of: FieldKind };

export interface FieldMeta {
  readonly kind: FieldKind;
  readonly nullable: boolean;
  readonly description?: string;
  readonly owner: FieldOwner;
  readonly merge: MergeRule;
  /** Present in the database and the replica but not in the public GraphQL type. */
  readonly internal: boolean;
  /** Upper bound on string length, enforced by the derived validators. */
  readonly maxLength?: number;
  /** Bounds of a number (what a test kit can show, a volume a pool can have), enforced by the derived validators. */
  readonly bounds?: NumberBounds;
  /** SQL column name when snake_case of the field name will not do (e.g. a reserved word). */
  readonly column?: string;
  /**
   * The values a text field may take, for a field the spec types as String (so GraphQL keeps it a
   * String); validators and the RxDB schema accept only these.
   */
  readonly values?: readonly string[];
}

/** The values a number field may take; `exclusiveMin`: the minimum itself is not allowed. */
export interface NumberBounds {
  readonly min?: number;
  readonly max?: number;
  readonly exclusiveMin?: boolean;
}

const isNumeric = (kind: FieldKind) => kind.type === 'scalar' && ['int', 'float', 'money'].includes(kind.scalar);

/** A field definition; `T` is the JS type of its value (phantom, for inference only). */
export class Field<T> {
  declare readonly __type: T;
  constructor(readonly meta: FieldMeta) {}

  private with(patch: Partial<FieldMeta>): Field<T> {
    return new Field<T>({ ...this.meta, ...patch });
  }

  nullable(): Field<T | null> {
    return new Field<T | null>({ ...this.meta, nullable: true });
  }

  doc(description: string): Field<T> {
    return this.with({ description });
  }

  owner(owner: FieldOwner): Field<T> {
    return this.with({ owner });
  }

  merge(merge: MergeRule): Field<T> {
    return this.with({ merge });
  }

  internal(): Field<T> {
    return this.with({ internal: true });
  }

  /** A string's longest length, or a number's largest value (as zod reads `max`). */
  max(max: number): Field<T> {
    return isNumeric(this.meta.kind) ? this.with({ bounds: { ...this.meta.bounds, max } }) : this.with({ maxLength: max });
  }

  /** A number's smallest value; `exclusive`: the value itself is refused too (a volume must be more than 0). */
  min(min: number, { exclusive = false }: { exclusive?: boolean } = {}): Field<T> {
    if (!isNumeric(this.meta.kind)) throw new Error('min() bounds numbers only');
    return this.with({ bounds: { ...this.meta.bounds, min, exclusiveMin: exclusive } });
  }

  column(column: string): Field<T> {
    return this.with({ column });
  }

  oneOf(values: readonly string[]): Field<T> {
    return this.with({ values });
  }
}

export type FieldMap = Readonly<Record<string, Field<unknown>>>;

/** The JS object type described by a field map. */
export type InferFields<F extends FieldMap> = { -readonly [K in keyof F]: F[K]['__type'] };

const DEFAULT_META = { nullable: false, owner: 'shared', merge: 'value', internal: false } as const;

function field<T>(kind: FieldKind): Field<T> {
  return new Field<T>({ ...DEFAULT_META, kind });
}

const scalar = <T>(kind: ScalarKind) => field<T>({ type: 'scalar', scalar: kind });

/** Declares an embedded object type (stored as jsonb, nested in RxDB, a GraphQL object). */
export function defineShape<F extends FieldMap>(
  name: string,
  fields: F,
  description?: string,
): ShapeDef<F> {
  return { name, fields, description };
}

/** The builders. Every field starts non-null, owned by either side, merged by value. */
export const f = {
  id: () => scalar<string>('id'),
  string: () => scalar<string>('string'),
  int: () => scalar<number>('int'),
  float: () => scalar<number>('float'),
  money: () => scalar<number>('money'),
  boolean: () => scalar<boolean>('boolean'),
  /** ISO 8601 UTC timestamp string. */
  dateTime: () => scalar<string>('dateTime'),
  /** Calendar date string, YYYY-MM-DD. */
  date: () => scalar<string>('date'),
  json: () => scalar<unknown>('json'),
  enum: <const V extends readonly string[]>(name: string, values: V) =>
    field<V[number]>({ type: 'enum', name, values }),
  object: <F extends FieldMap>(shape: ShapeDef<F>) =>
    field<InferFields<F>>({ type: 'object', shape }),
  list: <T>(of: Field<T>) => field<T[]>({ type: 'list', of: of.meta.kind }),
};
