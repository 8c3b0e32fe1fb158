import { z } from 'zod';
import { errors, idValidator, inputValidator, serviceResource, versionToKeep, type Service, type ServiceType } from '../../shared/index.js';
import type { Queryable } from '../storage/db.js';
import { customers } from '../storage/customers.js';
import {
  NOTIFICATION_STATUSES,
  SERVICE_DATE_FILTERS,
  SERVICE_SORT_FIELDS,
  SERVICE_STRING_FILTERS,
  servicePage,
  services,
  serviceSortKeys,
  serviceTypes,
  serviceTypesByIds,
  type ServiceSelector,
} from '../storage/services.js';
import { assertBillingStatusWritable } from './billing/visit-billing-status.js';
import { OFFICE_ROLES, type OperationContext } from './context.js';
import { newId } from './ids.js';
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
  technicians: z.array(idValidator()).max(100).nullish(),
});
/** Typed as storage's selector: TypeScript checks the validator's output against it. */
export const ServicesSelectorInput: z.ZodType<ServiceSelector | null | undefined> = z
  .strictObject({
    filters: ServiceFilterInput.nullish(),
    search: SearchInput,
    include: z.array(idValidator()).max(1000).nullish(),
    exclude: z.array(idValidator()).max(1000).nullish(),
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
  const selector = parseInput(ServicesSelectorInput, args.selector) ?? {};
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

/** Photos arrive through the upload endpoints (and sync), never as GraphQL input. */
const WRITE_OPTIONS = { omit: ['photos'] } as const;
const ServiceInput = inputValidator(serviceResource, WRITE_OPTIONS);
const OFFICE_FIELDS = Object.entries(serviceResource.fields)
  .filter(([, field]) => field.meta.owner === 'office')
  .map(([name]) => name);

/**
 * Records a visit. A technician's visit is theirs unless said otherwise; office-owned fields
 * (billing, flags, assignment) are the office's to set.
 */
export async function createService(ctx: OperationContext, raw: unknown): Promise<Service> {
  const input = parseInput(ServiceInput, raw);
  assertMayWrite(ctx, input);
  const orgId = ctx.viewer.orgId;
  assertBillingStatusWritable(null, input.billingStatus);
  return ctx.db.transaction(async (tx) => {
    await requireReferences(tx, orgId, input);
    const own = ctx.viewer.role === 'TECHNICIAN' ? { newTechnicianId: ctx.viewer.userId } : {};
    const chemistryVersion = versionToKeep(input.chemicalReadings, input.chemistryVersion);
    return services.insert(tx, orgId, { photos: [], ...own, ...input, chemistryVersion, id: newId(), createdById: ctx.viewer.userId });
  });
}

/** Fields not submitted stay as they were; null clears a field. */
export async function updateService(ctx: OperationContext, id: string, raw: unknown): Promise<Service> {
  const input = parseInput(ServiceInput, raw);
  assertMayWrite(ctx, input);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    await requireReferences(tx, orgId, input);
    if (input.billingStatus !== undefined) assertBillingStatusWritable((await services.findById(tx, orgId, id))?.billingStatus, input.billingStatus);
    const updated = await services.update(tx, orgId, id, await withChemistryVersion(tx, orgId, id, input));
    if (!updated) throw errors.notFound('Service', id);
    return updated;
  });
}

/** Readings written to a visit without a formula version keep the current one, unless it has one already. */
async function withChemistryVersion(tx: Queryable, orgId: string, id: string, input: Partial<Service>): Promise<Partial<Service>> {
  if (!input.chemicalReadings || input.chemistryVersion !== undefined) return input;
  const stored = await services.findById(tx, orgId, id);
  return stored ? { ...input, chemistryVersion: versionToKeep(input.chemicalReadings, stored.chemistryVersion) } : input;
}

function assertMayWrite(ctx: OperationContext, input: Partial<Service>): void {
  if (OFFICE_ROLES.includes(ctx.viewer.role)) return;
  const touched = OFFICE_FIELDS.filter((f) => input[f as keyof Service] !== undefined);
  if (touched.length) throw errors.forbidden(`A ${ctx.viewer.role} may not set office fields: ${touched.join(', ')}`);
}

async function requireReferences(tx: Queryable, orgId: string, input: Partial<Service>): Promise<void> {
  if (input.customerId && !(await customers.findById(tx, orgId, input.customerId))) {
    throw errors.notFound('Customer', input.customerId);
  }
  if (input.typeId && !(await serviceTypes.findById(tx, orgId, input.typeId))) {
    throw errors.notFound('Service type', input.typeId);
  }
}
