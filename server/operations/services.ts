import { z } from 'zod';
import type { Service, ServiceType } from '../../shared/index.js';
import {
  NOTIFICATION_STATUSES,
  SERVICE_DATE_FILTERS,
  SERVICE_SORT_FIELDS,
  SERVICE_STRING_FILTERS,
  servicePage,
  serviceSortKeys,
  serviceTypesByIds,
  type ServiceSelector,
} from '../storage/services.js';
import type { OperationContext } from './context.js';
import { BooleanFilterInput, DateTimeFilterInput, IdFilterInput, SearchInput, SortDirection, StringFilterInput } from './filters.js';
import { parseInput } from './input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from './pagination.js';

/** Visits: the filtered, searchable list the office works from. */

const each = <K extends string, V extends z.ZodType>(keys: Record<K, unknown>, validator: V) =>
  Object.fromEntries(Object.keys(keys).map((k) => [k, validator.nullish()])) as Record<K, z.ZodOptional<z.ZodNullable<V>>>;

const ServiceFilterInput = z.strictObject({
  id: IdFilterInput.nullish(),
  ...each(SERVICE_STRING_FILTERS, StringFilterInput),
  ...each(SERVICE_DATE_FILTERS, DateTimeFilterInput),
  customerTags: IdFilterInput.nullish(),
  customerReadyForInvoice: BooleanFilterInput.nullish(),
  notification: z.array(z.enum(NOTIFICATION_STATUSES)).max(3).nullish(),
  technicians: z.array(z.string().max(128)).max(100).nullish(),
});
const ServicesSelectorInput = z
  .strictObject({
    filters: ServiceFilterInput.nullish(),
    search: SearchInput,
    include: z.array(z.string().max(128)).max(1000).nullish(),
    exclude: z.array(z.string().max(128)).max(1000).nullish(),
  })
  .nullish();
const ServiceSortInput = z
  .strictObject({ field: z.enum(SERVICE_SORT_FIELDS), direction: SortDirection.nullish() })
  .nullish();

/** Newest visit first unless the caller sorts otherwise. */
export async function listServices(
  ctx: OperationContext,
  args: PageArgs & { selector?: unknown; sort?: unknown },
): Promise<Connection<Service>> {
  const selector = (parseInput(ServicesSelectorInput, args.selector) ?? {}) as ServiceSelector;
  const sort = parseInput(ServiceSortInput, args.sort);
  const keys = serviceSortKeys(sort?.field ?? 'START_TIME', sort?.direction ?? 'DESC');
  const tag = listTag(ctx.viewer.orgId, 'services', keys.map((k) => `${k.expr} ${k.desc}`).join());
  const window = pageWindow(args, tag, keys.length);
  return toConnection(await servicePage(ctx.db, ctx.viewer.orgId, selector, keys, window), window, tag);
}

export const serviceRelations = {
  types: (ctx: OperationContext, ids: readonly string[]): Promise<ServiceType[]> =>
    serviceTypesByIds(ctx.db, ctx.viewer.orgId, ids),
};
