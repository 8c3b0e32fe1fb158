import { z } from 'zod';
import {
  customerResource,
  errors,
  idValidator,
  inputValidator,
  type Appointment,
  type Customer,
} from '../../shared/index.js';
import { nextAppointmentsOf } from '../storage/appointments.js';
import {
  countCustomers,
  CUSTOMER_SORT_FIELDS,
  customerPage,
  customers,
  customersByIds,
  customerSortKeys,
  deleteQuotedPrices,
  existingServiceTypeIds,
  quotedPrices,
  quotedPricesOf,
  type CustomerSelector,
  type QuotedPriceWithType,
} from '../storage/customers.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import {
  BooleanFilterInput,
  DateTimeFilterInput,
  IdFilterInput,
  ScalarListFilterInput,
  SearchInput,
  SortDirection,
  StringFilterInput,
} from './filters.js';
import { newId } from './ids.js';
import { parseInput } from './input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from './pagination.js';

/** Customers: lists with search, filters and sorts; create and partial update; quoted prices. */

const CustomerFilterInput = z.strictObject({
  id: IdFilterInput.nullish(),
  status: IdFilterInput.nullish(),
  isCommercial: BooleanFilterInput.nullish(),
  readyForInvoice: BooleanFilterInput.nullish(),
  zone: StringFilterInput.nullish(),
  city: StringFilterInput.nullish(),
  state: StringFilterInput.nullish(),
  zipCode: StringFilterInput.nullish(),
  accountingId: StringFilterInput.nullish(),
  paymentProcessorId: StringFilterInput.nullish(),
  tags: ScalarListFilterInput.nullish(),
  customerSinceDate: DateTimeFilterInput.nullish(),
  deleted: BooleanFilterInput.nullish(),
});
/** Typed as storage's selector: TypeScript checks the validator's output against it. */
export const CustomersSelectorInput: z.ZodType<CustomerSelector | null | undefined> = z.strictObject({ search: SearchInput, filters: CustomerFilterInput.nullish() }).nullish();
const CustomersSortInput = z
  .array(z.strictObject({ field: z.enum(CUSTOMER_SORT_FIELDS), direction: SortDirection.nullish() }))
  .max(5)
  .nullish();

const CreateCustomerInput = inputValidator(customerResource, { required: ['lastName'] });
const UpdateCustomerInput = inputValidator(customerResource);
const QuotedPricesInput = z.strictObject({
  quotedPrices: z
    .array(z.strictObject({ typeId: idValidator().nullish(), price: z.number().finite().max(100_000_000) }))
    .max(200),
});

export interface CustomerConnection extends Connection<Customer> {
  /** Rows matching the selector over all pages; counted only when asked for. */
  totalCount: () => Promise<number>;
}

export async function listCustomers(
  ctx: OperationContext,
  args: PageArgs & { selector?: unknown; sort?: unknown },
): Promise<CustomerConnection> {
  const selector = parseInput(CustomersSelectorInput, args.selector) ?? {};
  const sort = (parseInput(CustomersSortInput, args.sort) ?? []).map((s) => ({ field: s.field, direction: s.direction ?? 'ASC' }));
  const keys = customerSortKeys(sort);
  const tag = listTag(ctx.viewer.orgId, 'customers', keys.map((k) => `${k.expr} ${k.desc}`).join());
  const window = pageWindow(args, tag, keys.length);
  const page = await customerPage(ctx.db, ctx.viewer.orgId, selector, keys, window);
  return {
    ...toConnection(page, window, tag),
    totalCount: async () => page.total ?? countCustomers(ctx.db, ctx.viewer.orgId, selector),
  };
}

/** Search-as-you-type: the same search as infiniteCustomers, by name. */
export async function lookupCustomers(
  ctx: OperationContext,
  args: PageArgs & { query: string },
): Promise<Connection<Customer>> {
  const search = parseInput(z.string().max(600, 'query: must be at most 600 characters'), args.query);
  const { totalCount: _, ...connection } = await listCustomers(ctx, {
    first: args.first,
    after: args.after,
    selector: { search },
  });
  return connection;
}

export async function createCustomer(ctx: OperationContext, raw: unknown): Promise<Customer> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'create customers');
  const input = parseInput(CreateCustomerInput, raw);
  return customers.insert(ctx.db, ctx.viewer.orgId, { ...input, id: newId(), createdById: ctx.viewer.userId });
}

/** Fields not submitted stay as they were; null clears a nullable field. */
export async function updateCustomer(ctx: OperationContext, id: string, raw: unknown): Promise<Customer> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change customers');
  const input = parseInput(UpdateCustomerInput, raw);
  const updated = await customers.update(ctx.db, ctx.viewer.orgId, id, input);
  if (!updated) throw errors.notFound('Customer', id);
  return updated;
}

/** Deletes softly: the customer leaves every list (unless filters.deleted.eq is true) and sync. */
export async function deleteCustomer(ctx: OperationContext, id: string): Promise<Customer> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'delete customers');
  const deleted = await customers.softDelete(ctx.db, ctx.viewer.orgId, id);
  if (!deleted) throw errors.notFound('Customer', id);
  return deleted;
}

/** Replaces every quoted price of a customer; entries priced 0 or less are dropped. */
export async function replaceQuotedPrices(
  ctx: OperationContext,
  customerId: string,
  raw: unknown,
): Promise<QuotedPriceWithType[]> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'change quoted prices');
  const { quotedPrices: entries } = parseInput(QuotedPricesInput, raw);
  const orgId = ctx.viewer.orgId;
  const kept = entries.filter((e) => e.price > 0);
  return ctx.db.transaction(async (tx) => {
    if (!(await customers.findById(tx, orgId, customerId))) throw errors.notFound('Customer', customerId);
    const typeIds = kept.flatMap((e) => (e.typeId ? [e.typeId] : []));
    const known = await existingServiceTypeIds(tx, orgId, typeIds);
    const unknown = typeIds.filter((t) => !known.has(t));
    if (unknown.length) throw errors.badInput(`typeId: service type ${unknown[0]} was not found`, { fields: ['typeId'] });
    await deleteQuotedPrices(tx, orgId, customerId);
    for (const [position, entry] of kept.entries()) {
      await quotedPrices.insert(tx, orgId, { id: newId(), customerId, typeId: entry.typeId ?? null, price: entry.price, position });
    }
    return quotedPricesOf(tx, orgId, [customerId]);
  });
}

/** Batch loaders for relations (one query per page, not per row). */
export const customerRelations = {
  byIds: (ctx: OperationContext, ids: readonly string[]) => customersByIds(ctx.db, ctx.viewer.orgId, ids),
  quotedPrices: (ctx: OperationContext, ids: readonly string[]) => quotedPricesOf(ctx.db, ctx.viewer.orgId, ids),
  nextAppointments: (ctx: OperationContext, ids: readonly string[]): Promise<Appointment[]> =>
    nextAppointmentsOf(ctx.db, ctx.viewer.orgId, ids),
};
