import { z } from 'zod';
import { csvColumnsOf, customerResource, describeIssues, inputValidator, withNullsLeftOut, type Customer } from '../../../../shared/index.js';
import { customerIdsMatching, customerPage, customers } from '../../../storage/customers.js';
import type { Queryable } from '../../../storage/db.js';
import { CustomersSelectorInput } from '../../customers.js';
import { BY_ID, defineKind, exportKind, exportWindow, idsOf, ids, itemRecordId, lastKey, MAX_BULK_ITEMS, patchKind, resolveSelection, type IdsPayload, type ItemOutcome, type KindDefinition } from '../kind.js';

/** Customers: create many, change many, delete many, export. */

const CustomerCreate = inputValidator(customerResource, { required: ['lastName'] });
const CustomerPatch = inputValidator(customerResource);

/** Explicit ids or infiniteCustomers' selector; the messages kinds select customers the same way. */
export const CustomerSelection = z
  .strictObject({ ids: ids.nullish(), selector: CustomersSelectorInput })
  .refine((s) => s.ids || s.selector, 'give ids or a selector');

export const customerSelection = (q: Queryable, orgId: string, selection: z.output<typeof CustomerSelection>) =>
  resolveSelection(q, orgId, { ids: selection.ids, match: () => customerIdsMatching(q, orgId, selection.selector ?? {}) }, customers, 'customers');

const CreateRequest = z.strictObject({ items: z.array(z.unknown()).min(1).max(MAX_BULK_ITEMS, `at most ${MAX_BULK_ITEMS} items per operation`) });

const customersCreate = defineKind<z.output<typeof CreateRequest>, unknown>({
  kind: 'CUSTOMERS_CREATE',
  async prepare(_q, _orgId, raw) {
    const payload = CreateRequest.parse(raw);
    return { payload, total: payload.items.length };
  },
  run: {
    type: 'chunked',
    items: (payload) => payload.items,
    async apply(env, _payload, items) {
      const outcomes: ItemOutcome[] = [];
      const valid: (Partial<Customer> & { id: string })[] = [];
      for (const { index, item } of items) {
        const parsed = CustomerCreate.safeParse(item);
        if (parsed.success) {
          valid.push(withNullsLeftOut(customerResource, { ...parsed.data, id: itemRecordId(env.operationId, index) }));
          outcomes.push({ ok: true });
        } else {
          outcomes.push({ error: { code: 'BAD_USER_INPUT', message: describeIssues(parsed.error.issues, { whole: '(item)', limit: Infinity }) } });
        }
      }
      await customers.insertMany(env.tx, env.orgId, valid);
      return outcomes;
    },
  },
});

const customersDelete = defineKind<IdsPayload, string>({
  kind: 'CUSTOMERS_DELETE',
  async prepare(q, orgId, raw) {
    const { selection } = z.strictObject({ selection: CustomerSelection }).parse(raw);
    const found = await customerSelection(q, orgId, selection);
    return { payload: { ids: found }, total: found.length };
  },
  run: {
    type: 'chunked',
    items: idsOf,
    async apply(env, _payload, items) {
      const deleted = new Set(await customers.softDeleteMany(env.tx, env.orgId, items.map((i) => i.item)));
      return items.map((i) => (deleted.has(i.item) ? { ok: true } : { error: { code: 'NOT_FOUND', message: 'already deleted' } }));
    },
  },
});

const ExportRequest = z.strictObject({ selection: z.strictObject({ selector: CustomersSelectorInput }).nullish() });

const customersExport = exportKind(
  'CUSTOMERS_EXPORT',
  ExportRequest,
  async (q, orgId, payload, after) => {
    const selector = payload.selection?.selector ?? {};
    const page = await customerPage(q, orgId, selector, BY_ID('c'), exportWindow(after));
    return { rows: page.rows.map((r) => r.record), last: lastKey(page) };
  },
  csvColumnsOf(customerResource),
  'customers',
);

export const CUSTOMER_KINDS: readonly KindDefinition[] = [
  customersCreate,
  patchKind('CUSTOMERS_UPDATE', CustomerSelection, CustomerPatch, customerSelection, customers),
  customersDelete,
  customersExport,
];
