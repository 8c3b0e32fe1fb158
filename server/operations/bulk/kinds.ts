import { createHash } from 'node:crypto';
import Mustache from 'mustache';
import { z } from 'zod';
import {
  customerResource,
  describeIssues,
  errors,
  inputValidator,
  inventoryItemResource,
  serviceResource,
  type Customer,
  type InventoryItem,
  type Service,
} from '../../../shared/index.js';
import { customerIdsMatching, customerPage, customers, customersByIds, type CustomerSelector } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { inventoryIdsMatching, inventoryItems, inventoryPage, type InventoryFilter } from '../../storage/inventory.js';
import type { SortKey } from '../../storage/lists/keyset.js';
import type { ItemError } from '../../storage/bulk-operations.js';
import type { OutboxMessage } from '../../storage/outbox.js';
import { serviceIdsMatching, servicePage, services, type ServiceSelector } from '../../storage/services.js';
import type { CsvColumn } from '../csv.js';
import { CustomersSelectorInput } from '../customers.js';
import { InventoryFilterInput } from '../inventory.js';
import { ServicesSelectorInput } from '../services.js';

/**
 * What each bulk-operation kind does. A kind either works through a list of items in chunks (each
 * chunk one transaction with its progress), or streams an export. Selections (the list operations'
 * selector or filter, or explicit ids) are resolved to ids when the operation starts, so later
 * writes do not change what it works on.
 */
export const MAX_BULK_ITEMS = 10_000;

export type ItemOutcome = { ok: true } | { skipped: true } | { error: Omit<ItemError, 'index' | 'id'> };

export interface ChunkEnv {
  tx: Queryable;
  orgId: string;
  operationId: string;
  /** Puts messages in the outbox, in this chunk's transaction (the worker decides their status). */
  addMessages(messages: Omit<OutboxMessage, 'createdAt' | 'sentAt' | 'error' | 'status'>[]): Promise<void>;
}

export interface ChunkedKind {
  type: 'chunked';
  /** The work list stored in the payload (inputs to create, or ids). */
  items(payload: Payload): unknown[];
  apply(env: ChunkEnv, payload: Payload, items: { index: number; item: unknown }[]): Promise<ItemOutcome[]>;
  /** Kinds whose chunks produce messages to deliver after each commit. */
  sendsMessages?: boolean;
}

export interface ExportKind {
  type: 'export';
  rows(q: Queryable, orgId: string, payload: Payload): AsyncIterable<Record<string, unknown>>;
  columns: readonly CsvColumn<Record<string, unknown>>[];
  fileName: string;
}

export type Payload = Record<string, unknown>;

export interface KindDefinition {
  kind: string;
  /** Validates the request and resolves selections; returns what is stored and the item count. */
  prepare(q: Queryable, orgId: string, raw: unknown): Promise<{ payload: Payload; total: number }>;
  run: ChunkedKind | ExportKind;
}

const ids = z.array(z.string().min(1).max(128)).min(1).max(MAX_BULK_ITEMS);

/** A selection: explicit ids (all must be the organization's) or the list operation's selector. */
async function resolveSelection(
  q: Queryable,
  orgId: string,
  selection: { ids?: string[] | null; match: () => Promise<string[]> },
  table: { existingIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>> },
  what: string,
): Promise<string[]> {
  if (selection.ids) {
    const found = await table.existingIds(q, orgId, selection.ids);
    const missing = selection.ids.filter((id) => !found.has(id));
    if (missing.length) {
      throw errors.badInput(`ids: ${missing.length} ${what} not found in your organization (${missing.slice(0, 5).join(', ')})`);
    }
    return [...new Set(selection.ids)];
  }
  const matched = await selection.match();
  if (matched.length > MAX_BULK_ITEMS * 10) {
    throw errors.badInput(`the selection matches ${matched.length} ${what}; narrow it`);
  }
  return matched;
}

const idsOf = (payload: Payload) => payload.ids as string[];

/** A stable id per (operation, item), so a repeated chunk can never create a second record. */
export function itemRecordId(operationId: string, index: number): string {
  const hex = createHash('sha256').update(`${operationId}:${index}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

async function* keysetRows<T>(read: (after: string | null) => Promise<{ rows: T[]; last: string | null }>) {
  let after: string | null = null;
  for (;;) {
    const { rows, last } = await read(after);
    yield* rows;
    if (!last) return;
    after = last;
  }
}

const BY_ID = (alias: string): SortKey[] => [{ expr: `${alias}.id`, type: 'text', desc: false }];
const EXPORT_BATCH = 1000;

// ---- customers --------------------------------------------------------------------------------

const CustomerCreate = inputValidator(customerResource, { required: ['lastName'] });
const CustomerPatch = inputValidator(customerResource);
const CustomerSelection = z.strictObject({ ids: ids.nullish(), selector: CustomersSelectorInput }).refine((s) => s.ids || s.selector, 'give ids or a selector');

const customerSelection = (q: Queryable, orgId: string, selection: z.output<typeof CustomerSelection>) =>
  resolveSelection(q, orgId, { ids: selection.ids, match: () => customerIdsMatching(q, orgId, (selection.selector ?? {}) as CustomerSelector) }, customers, 'customers');

function patchKind(
  kind: string,
  selectionSchema: z.ZodType,
  patchSchema: z.ZodType,
  resolve: (q: Queryable, orgId: string, selection: never) => Promise<string[]>,
  table: { patchMany(q: Queryable, orgId: string, ids: readonly string[], patch: object): Promise<string[]> },
): KindDefinition {
  const Request = z.strictObject({ selection: selectionSchema, patch: patchSchema });
  return {
    kind,
    async prepare(q, orgId, raw) {
      const { selection, patch } = Request.parse(raw) as { selection: never; patch: Payload };
      if (!Object.keys(patch).length) throw errors.badInput('patch: change at least one field');
      const found = await resolve(q, orgId, selection);
      return { payload: { ids: found, patch }, total: found.length };
    },
    run: {
      type: 'chunked',
      items: idsOf,
      async apply(env, payload, items) {
        const changed = new Set(await table.patchMany(env.tx, env.orgId, items.map((i) => i.item as string), payload.patch as object));
        return items.map((i) => (changed.has(i.item as string) ? { ok: true } : { error: { code: 'NOT_FOUND', message: 'deleted since the operation started' } }));
      },
    },
  };
}

const customersCreate: KindDefinition = {
  kind: 'CUSTOMERS_CREATE',
  async prepare(_q, _orgId, raw) {
    const { items } = z.strictObject({ items: z.array(z.unknown()).min(1).max(MAX_BULK_ITEMS, `at most ${MAX_BULK_ITEMS} items per operation`) }).parse(raw);
    return { payload: { items }, total: items.length };
  },
  run: {
    type: 'chunked',
    items: (payload) => payload.items as unknown[],
    async apply(env, _payload, items) {
      const outcomes: ItemOutcome[] = [];
      const valid: (Partial<Customer> & { id: string })[] = [];
      for (const { index, item } of items) {
        const parsed = CustomerCreate.safeParse(item);
        if (parsed.success) {
          valid.push({ ...(parsed.data as Partial<Customer>), id: itemRecordId(env.operationId, index) });
          outcomes.push({ ok: true });
        } else {
          const message = describeIssues(parsed.error.issues, { whole: '(item)', limit: Infinity });
          outcomes.push({ error: { code: 'BAD_USER_INPUT', message } });
        }
      }
      const full = valid.map((doc) => Object.fromEntries(Object.entries(customerResource.fields).map(([f, { meta }]) => [f, (doc as Record<string, unknown>)[f] ?? (meta.nullable ? null : undefined)])));
      await customers.insertMany(env.tx, env.orgId, full as never);
      return outcomes;
    },
  },
};

const customersUpdate = patchKind('CUSTOMERS_UPDATE', CustomerSelection, CustomerPatch, customerSelection as never, customers);

const customersDelete: KindDefinition = {
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
      const deleted = new Set(await customers.softDeleteMany(env.tx, env.orgId, items.map((i) => i.item as string)));
      return items.map((i) => (deleted.has(i.item as string) ? { ok: true } : { error: { code: 'NOT_FOUND', message: 'already deleted' } }));
    },
  },
};

const CUSTOMER_COLUMNS: readonly CsvColumn<Record<string, unknown>>[] = [
  'id', 'firstName', 'lastName', 'email', 'phoneNumber', 'streetAddress', 'city', 'state', 'zipCode', 'status', 'zone',
  'tags', 'customerSinceDate', 'isCommercial', 'readyForInvoice', 'createdAt', 'updatedAt',
].map((field) => ({
  header: field,
  value: (row: Record<string, unknown>) => {
    const v = row[field];
    return Array.isArray(v) ? v.join(';') : typeof v === 'boolean' ? String(v) : (v as string | number | null) ?? null;
  },
}));

function exportKind<T>(
  kind: string,
  request: z.ZodType,
  page: (q: Queryable, orgId: string, payload: Payload, after: string | null) => Promise<{ rows: T[]; last: string | null }>,
  columns: readonly CsvColumn<Record<string, unknown>>[],
  fileName: string,
): KindDefinition {
  return {
    kind,
    async prepare(_q, _orgId, raw) {
      return { payload: request.parse(raw ?? {}) as Payload, total: 0 };
    },
    run: {
      type: 'export',
      columns,
      fileName,
      rows: (q, orgId, payload) => keysetRows((after) => page(q, orgId, payload, after)) as AsyncIterable<Record<string, unknown>>,
    },
  };
}

const window = (after: string | null) => ({ size: EXPORT_BATCH, from: after ? [after] : null, backward: false });
const lastKey = (page: { rows: { keys: string[] }[]; more: boolean }) => (page.more ? page.rows.at(-1)!.keys[0]! : null);

const customersExport = exportKind<Customer>(
  'CUSTOMERS_EXPORT',
  z.strictObject({ selection: z.strictObject({ selector: CustomersSelectorInput }).nullish() }),
  async (q, orgId, payload, after) => {
    const selector = ((payload.selection as { selector?: unknown } | null)?.selector ?? {}) as CustomerSelector;
    const page = await customerPage(q, orgId, selector, BY_ID('c'), window(after));
    return { rows: page.rows.map((r) => r.record), last: lastKey(page) };
  },
  CUSTOMER_COLUMNS,
  'customers',
);

// ---- messages ---------------------------------------------------------------------------------

const EMAIL_FIELDS = ['email', 'alternateEmail', 'tertiaryEmail', 'fourthEmail'] as const;
const PHONES = [
  ['phoneNumber', 'phoneNumberEnableSMS'],
  ['alternatePhoneNumber', 'alternatePhoneNumberEnableSMS'],
  ['tertiaryPhoneNumber', 'tertiaryPhoneNumberEnableSMS'],
  ['fourthPhoneNumber', 'fourthPhoneNumberEnableSMS'],
] as const;

function recipientOf(customer: Customer, channel: 'EMAIL' | 'SMS'): string | null {
  if (channel === 'EMAIL') return EMAIL_FIELDS.map((f) => customer[f]).find((v) => v && v.trim()) ?? null;
  const phone = PHONES.find(([number, sms]) => customer[sms] === true && customer[number]);
  return phone ? (customer[phone[0]] as string) : null;
}

/** Templates use customer fields: "Hi {{firstName}}, ..." (plain text, nothing escaped). */
function render(template: string, customer: Customer): string {
  return Mustache.render(template, customer, {}, { escape: (text: string) => String(text) });
}

function messageKind(kind: string, channel: 'EMAIL' | 'SMS'): KindDefinition {
  const Message =
    channel === 'EMAIL'
      ? z.strictObject({ selection: CustomerSelection, subject: z.string().trim().min(1).max(300), body: z.string().trim().min(1).max(20_000) })
      : z.strictObject({ selection: CustomerSelection, body: z.string().trim().min(1).max(1600) });
  return {
    kind,
    async prepare(q, orgId, raw) {
      const { selection, ...message } = Message.parse(raw);
      for (const template of Object.values(message)) Mustache.parse(template as string);
      const found = await customerSelection(q, orgId, selection);
      return { payload: { ids: found, ...message }, total: found.length };
    },
    run: {
      type: 'chunked',
      items: idsOf,
      sendsMessages: true,
      async apply(env, payload, items) {
        const byId = new Map((await customersByIds(env.tx, env.orgId, items.map((i) => i.item as string))).map((c) => [c.id, c]));
        const outcomes: ItemOutcome[] = [];
        const messages: Omit<OutboxMessage, 'createdAt' | 'sentAt' | 'error' | 'status'>[] = [];
        for (const { index, item } of items) {
          const customer = byId.get(item as string);
          const recipient = customer ? recipientOf(customer, channel) : null;
          if (!customer || !recipient) {
            outcomes.push({ skipped: true });
            continue;
          }
          messages.push({
            id: itemRecordId(env.operationId, index),
            operationId: env.operationId,
            channel,
            customerId: customer.id,
            recipient,
            subject: channel === 'EMAIL' ? render(payload.subject as string, customer) : null,
            body: render(payload.body as string, customer),
          });
          outcomes.push({ ok: true });
        }
        await env.addMessages(messages);
        return outcomes;
      },
    },
  };
}

// ---- inventory and services -----------------------------------------------------------------

const ItemPatch = inputValidator(inventoryItemResource);
const ItemSelection = z.strictObject({ ids: ids.nullish(), filter: InventoryFilterInput }).refine((s) => s.ids || s.filter !== undefined, 'give ids or a filter');
const itemSelection = (q: Queryable, orgId: string, s: z.output<typeof ItemSelection>) =>
  resolveSelection(q, orgId, { ids: s.ids, match: () => inventoryIdsMatching(q, orgId, (s.filter ?? {}) as InventoryFilter) }, inventoryItems, 'items');

const ServicePatch = inputValidator(serviceResource, { omit: ['photos'] });
const ServiceSelection = z.strictObject({ ids: ids.nullish(), selector: ServicesSelectorInput }).refine((s) => s.ids || s.selector, 'give ids or a selector');
const serviceSelection = (q: Queryable, orgId: string, s: z.output<typeof ServiceSelection>) =>
  resolveSelection(q, orgId, { ids: s.ids, match: () => serviceIdsMatching(q, orgId, (s.selector ?? {}) as ServiceSelector) }, services, 'visits');

const simpleColumns = (fields: string[]): CsvColumn<Record<string, unknown>>[] =>
  fields.map((field) => ({ header: field, value: (row) => (row[field] as string | number | null) ?? null }));

const inventoryExport = exportKind<InventoryItem>(
  'INVENTORY_EXPORT',
  z.strictObject({ selection: z.strictObject({ filter: InventoryFilterInput }).nullish() }),
  async (q, orgId, payload, after) => {
    const filter = ((payload.selection as { filter?: unknown } | null)?.filter ?? {}) as InventoryFilter;
    // Items page by name then id; the export reads them in that order with the same window.
    const page = await inventoryPage(q, orgId, filter, { size: EXPORT_BATCH, from: after ? JSON.parse(after) : null, backward: false });
    return { rows: page.rows.map((r) => r.record), last: page.more ? JSON.stringify(page.rows.at(-1)!.keys) : null };
  },
  simpleColumns(['id', 'name', 'sku', 'category', 'unitPrice', 'costPrice', 'quantity', 'reorderPoint', 'unit', 'accountingId', 'isActive']).map((c) =>
    c.header === 'isActive' ? { ...c, value: (row: Record<string, unknown>) => String(row.isActive) } : c,
  ),
  'inventory',
);

const servicesExport = exportKind<Service>(
  'SERVICES_EXPORT',
  z.strictObject({ selection: z.strictObject({ selector: ServicesSelectorInput }).nullish() }),
  async (q, orgId, payload, after) => {
    const selector = ((payload.selection as { selector?: unknown } | null)?.selector ?? {}) as ServiceSelector;
    const page = await servicePage(q, orgId, selector, BY_ID('s'), window(after));
    return { rows: page.rows.map((r) => ({ ...r.record, ...(r.record.chemicalReadings ?? {}) })), last: lastKey(page) };
  },
  simpleColumns([
    'id', 'reference', 'customerId', 'typeId', 'newTechnicianId', 'startTime', 'endTime', 'billingStatus', 'flag', 'vacuum',
    'waterLevel', 'waterCondition', 'waterColor', 'notes', 'freeChlorine', 'totalChlorine', 'ph', 'totalAlkalinity',
    'calciumHardness', 'cyanuricAcid', 'salt', 'createdAt', 'updatedAt',
  ]),
  'services',
);

export const BULK_KINDS: readonly KindDefinition[] = [
  customersCreate,
  customersUpdate,
  customersDelete,
  customersExport,
  messageKind('CUSTOMERS_EMAIL', 'EMAIL'),
  messageKind('CUSTOMERS_TEXT', 'SMS'),
  inventoryExport,
  patchKind('INVENTORY_UPDATE', ItemSelection, ItemPatch, itemSelection as never, inventoryItems),
  servicesExport,
  patchKind('SERVICES_UPDATE', ServiceSelection, ServicePatch, serviceSelection as never, services),
];

export const BULK_KIND_NAMES = BULK_KINDS.map((k) => k.kind);
export const kindNamed = (name: string) => BULK_KINDS.find((k) => k.kind === name);
