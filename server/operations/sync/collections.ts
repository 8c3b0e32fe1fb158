import {
  appointmentResource,
  customerResource,
  errors,
  inventoryItemResource,
  inventoryLocationResource,
  organizationResource,
  quoteResource,
  serviceResource,
  serviceTypeResource,
  stockLevelResource,
  stockMovementResource,
  type Quote,
  type ResourceDef,
  type Role,
} from '../../../shared/index.js';
import { appointments } from '../../storage/appointments.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { inventoryItems, inventoryLocations, stockLevels, stockMovements } from '../../storage/inventory.js';
import { organizations } from '../../storage/organizations.js';
import { quotes } from '../../storage/quotes.js';
import type { RecordTable } from '../../storage/records.js';
import { services, serviceTypes } from '../../storage/services.js';
import { OFFICE_ROLES, type OperationContext } from '../context.js';
import { assertEditable, whyMayNotChangeQuote } from '../quote-rules.js';
import { nextQuoteNumber, priceQuote } from '../quotes.js';
import type { Doc } from './merge.js';
import type { References } from './references.js';

/**
 * What replicates, and the rules of each collection: who may push, what the server fills in on a
 * new document, and which rows a device pulls. Eleven collections at most on the device side
 * (RxDB's open-source limit is 13 per process).
 */
export type CollectionKind = 'documents' | 'readonly' | 'ledger';

export interface SyncCollection {
  name: string;
  resource: ResourceDef;
  table: RecordTable<ResourceDef>;
  kind: CollectionKind;
  /** Roles whose pushes are applied; others are answered with the server state. */
  writers: readonly Role[];
  /** Fills the server's fields of a new document; throws BAD_USER_INPUT when it cannot be accepted. */
  onInsert?(ctx: OperationContext, tx: Queryable, doc: Doc, refs: References): Promise<Doc>;
  /**
   * Fields naming records of other tables (of the same organization, live). Checked on every
   * path: a new document, and any change of the field on an existing one. Loaded in one query
   * per push and table.
   */
  references?: Reference[];
  /** Checks and completes a merged change; throws BAD_USER_INPUT to refuse it. */
  onUpdate?(ctx: OperationContext, tx: Queryable, merged: Doc, master: Doc): Promise<Doc>;
  /** Why this viewer may not change this existing document, or null. */
  refuse?(ctx: OperationContext, master: Doc): string | null;
}

export interface Reference {
  field: string;
  table: RecordTable<ResourceDef>;
  /** How an error names the record, e.g. "Customer". */
  what: string;
}

const EVERYONE: readonly Role[] = ['ADMIN', 'OFFICE', 'API', 'TECHNICIAN'];
const table = <R extends ResourceDef>(t: RecordTable<R>) => t as unknown as RecordTable<ResourceDef>;
const CUSTOMER: Reference = { field: 'customerId', table: table(customers), what: 'Customer' };
const SERVICE_TYPE: Reference = { field: 'typeId', table: table(serviceTypes), what: 'Service type' };

const quoteRules: Pick<SyncCollection, 'onInsert' | 'onUpdate' | 'refuse' | 'references'> = {
  references: [CUSTOMER],
  async onInsert(ctx, tx, doc) {
    const orgId = ctx.viewer.orgId;
    const { number, defaultTaxId } = await nextQuoteNumber(tx, orgId);
    const taxId = (doc.taxId as string | null | undefined) ?? defaultTaxId;
    const priced = await priceQuote(tx, orgId, (doc.lineItems as Quote['lineItems']) ?? [], taxId);
    return { ...doc, number, taxId, status: 'DRAFT', acceptedAt: null, pdfKey: null, createdById: ctx.viewer.userId, ...priced };
  },
  async onUpdate(ctx, tx, merged, master) {
    const changed = ['title', 'customerId', 'validUntil', 'lineItems', 'taxId', 'notes', 'terms'].some(
      (f) => JSON.stringify(merged[f] ?? null) !== JSON.stringify(master[f] ?? null),
    );
    if (changed) assertEditable(master as Doc & Pick<Quote, 'number' | 'status'>);
    if (!changed) return merged;
    const priced = await priceQuote(tx, ctx.viewer.orgId, merged.lineItems as Quote['lineItems'], merged.taxId as string | null);
    return { ...merged, ...priced };
  },
  refuse: (ctx, master) => whyMayNotChangeQuote(ctx.viewer, master as Doc & Pick<Quote, 'createdById'>),
};

export const SYNC_COLLECTIONS: readonly SyncCollection[] = [
  { name: 'organization', resource: organizationResource, table: table(organizations), kind: 'readonly', writers: [] },
  { name: 'serviceTypes', resource: serviceTypeResource, table: table(serviceTypes), kind: 'readonly', writers: [] },
  {
    name: 'customers',
    resource: customerResource,
    table: table(customers),
    kind: 'documents',
    writers: EVERYONE,
  },
  {
    name: 'appointments',
    resource: appointmentResource,
    table: table(appointments),
    kind: 'documents',
    writers: OFFICE_ROLES,
    references: [CUSTOMER, SERVICE_TYPE],
  },
  {
    name: 'services',
    resource: serviceResource,
    table: table(services),
    kind: 'documents',
    writers: EVERYONE,
    references: [CUSTOMER, SERVICE_TYPE],
    // A technician's new visit is theirs unless it names someone (as createService does).
    async onInsert(ctx, _tx, doc) {
      const own = ctx.viewer.role === 'TECHNICIAN' ? ctx.viewer.userId : null;
      return { ...doc, newTechnicianId: doc.newTechnicianId ?? own, dateEmailed: null, dateTexted: null };
    },
  },
  { name: 'quotes', resource: quoteResource, table: table(quotes), kind: 'documents', writers: EVERYONE, ...quoteRules },
  {
    name: 'inventoryLocations',
    resource: inventoryLocationResource,
    table: table(inventoryLocations),
    kind: 'documents',
    writers: OFFICE_ROLES,
  },
  {
    name: 'inventoryItems',
    resource: inventoryItemResource,
    table: table(inventoryItems),
    kind: 'documents',
    writers: OFFICE_ROLES,
    async onInsert(_ctx, _tx, doc) {
      return { ...doc, quantity: 0 };
    },
  },
  { name: 'stockLevels', resource: stockLevelResource, table: table(stockLevels), kind: 'readonly', writers: [] },
  { name: 'stockMovements', resource: stockMovementResource, table: table(stockMovements), kind: 'ledger', writers: EVERYONE },
];

const byName = new Map(SYNC_COLLECTIONS.map((c) => [c.name, c]));

export function syncCollection(name: string): SyncCollection {
  const collection = byName.get(name);
  if (!collection) throw errors.notFound('Sync collection', name);
  return collection;
}
