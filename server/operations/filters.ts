import { z } from 'zod';
import { idValidator } from '../../shared/index.js';

/**
 * Validators of the filter inputs shared by every list (IdFilter, StringFilter, BooleanFilter,
 * DateTimeFilter, ScalarListFilter). The spec spells equality both `eq` (customers) and
 * `equals` (services); both are accepted and mean the same, folded into `eq` here.
 */
const id = idValidator();
const text = z.string().max(600);
const ids = z.array(id).max(1000);

function foldEquals<T extends { eq?: unknown; equals?: unknown }>(value: T) {
  const { equals, ...rest } = value;
  return { ...rest, eq: rest.eq ?? equals };
}

export const IdFilterInput = z
  .strictObject({ eq: id.nullish(), equals: id.nullish(), in: ids.nullish(), notIn: ids.nullish() })
  .transform(foldEquals);

export const StringFilterInput = z
  .strictObject({
    eq: text.nullish(),
    equals: text.nullish(),
    in: z.array(text).max(1000).nullish(),
    notIn: z.array(text).max(1000).nullish(),
    contains: text.nullish(),
    startsWith: text.nullish(),
  })
  .transform(foldEquals);

export const BooleanFilterInput = z.strictObject({ eq: z.boolean().nullish(), equals: z.boolean().nullish() }).transform(foldEquals);

const instant = z.iso.datetime({ offset: true });
export const DateTimeFilterInput = z
  .strictObject({
    eq: instant.nullish(),
    equals: instant.nullish(),
    gte: instant.nullish(),
    lte: instant.nullish(),
    gt: instant.nullish(),
    lt: instant.nullish(),
  })
  .transform(foldEquals);

export const ScalarListFilterInput = z.strictObject({
  has: text.nullish(),
  hasSome: z.array(text).max(1000).nullish(),
  hasEvery: z.array(text).max(1000).nullish(),
  isEmpty: z.boolean().nullish(),
});

export const SearchInput = z.string().max(600, 'must be at most 600 characters').nullish();

export const SortDirection = z.enum(['ASC', 'DESC']);
