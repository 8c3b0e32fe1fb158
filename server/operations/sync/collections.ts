import {
  appointmentResource,
  customerResource,
  errors,
  inventoryItemResource,
  invoiceResource,
  paymentResource,
  syncRule,
  type CollectionKind,
  inventoryLocationResource,
  organizationResource,
  quoteResource,
  serviceResource,
  serviceTypeResource,
  stockLevelResource,
  stockMovementResource,
  type RecordOf,
  type ResourceDef,
  type Role,
  versionToKeep,
} from '../../../shared/index.js';
import { appointments } from '../../storage/appointments.js';
import { invoices } from '../../storage/invoices.js';
import { payments } from '../../storage/payments.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { inventoryItems, inventoryLocations, stockLevels, stockMovements } from '../../storage/inventory.js';
import { organizations } from '../../storage/organizations.js';
import { quotes } from '../../storage/quotes.js';
import type { RecordTable } from '../../storage/records.js';
import { services, serviceTypes } from '../../storage/services.js';
import { assertBillingStatusWritable, whyBillingStatusRefused } from '../billing/visit-billing-status.js';
import type { OperationContext } from '../context.js';
import { assertEditable, whyMayNotChangeQuote } from '../quote-rules.js';
import { nextQuoteNumber, priceQuote } from '../quotes.js';
import { type Doc } from './doc.js';
import { recordMovement, type LedgerRecord } from './ledger-entries.js';
import { recordPayment } from './payment-push.js';
import type { ReferencedTable, References } from './references.js';

/**
 * What replicates, and how the server applies each collection's rules. The rules themselves (kind,
 * writers, references) are shared/sync/rules.ts, read by the SDK too; here they meet the tables
 * and the server's hooks: what it fills in on a new document, checks on a change, refuses.
 */
export type { CollectionKind } from '../../../shared/index.js';

/** A pushed document of a resource: the fields the device sent (validated against it), and its id. */
export type DocOf<R extends ResourceDef> = Partial<RecordOf<R>> & Doc;
/** A stored document of a resource (a master, or one merged with a push); in the registry, any Doc. */
export type StoredOf<R extends ResourceDef> = ResourceDef extends R ? Doc : RecordOf<R> & Doc;

export interface SyncCollection<R extends ResourceDef = ResourceDef> {
  name: string;
  resource: R;
  table: RecordTable<R>;
  kind: CollectionKind;
  /** Roles whose pushes are applied; others are answered with the server state. */
  writers: readonly Role[];
  /** Fills the server's fields of a new document; throws BAD_USER_INPUT when it cannot be accepted. */
  onInsert?(ctx: OperationContext, tx: Queryable, doc: DocOf<R>, refs: References): Promise<DocOf<R>>;
  /**
   * Fields naming records of other tables (of the same organization, live). Checked on every
   * path: a new document, and any change of the field on an existing one. Loaded in one query
   * per push and table.
   */
  references: Reference[];
  /** Checks and completes a merged change; throws BAD_USER_INPUT to refuse it. */
  onUpdate?(ctx: OperationContext, tx: Queryable, merged: StoredOf<R>, master: StoredOf<R>): Promise<StoredOf<R>>;
  /** Why this viewer may not change this existing document, or null. */
  refuse?(ctx: OperationContext, master: StoredOf<R>): string | null;
  /** A ledger's way of recording a new entry once (ledger-entries.ts). */
  recordEntry?(ctx: OperationContext, tx: Queryable, doc: Doc): Promise<LedgerRecord>;
}

export interface Reference {
  field: string;
  table: ReferencedTable;
  /** How an error names the record, e.g. "Customer". */
  what: string;
}

type Hooks<R extends ResourceDef> = Pick<SyncCollection<R>, 'onInsert' | 'onUpdate' | 'refuse' | 'recordEntry'>;

/** The table that holds each replicated collection. */
const TABLES: Record<string, RecordTable<ResourceDef>> = {
  organization: organizations,
  serviceTypes,
  customers,
  appointments,
  services,
  quotes,
  inventoryLocations,
  inventoryItems,
  stockLevels,
  stockMovements,
  invoices,
  payments,
} as Record<string, RecordTable<ResourceDef>>;

/**
 * A collection for the registry: its shared rule, its table, and the server's hooks. Push
 * validates each document against the collection's own resource before any hook sees it, so the
 * typed hooks' documents are what they say; this is the one place that says so.
 */
function collection<R extends ResourceDef>(resource: R, hooks: Hooks<R> = {}): SyncCollection {
  const name = resource.collection!;
  const rule = syncRule(name)!;
  const references = rule.references.map((r) => ({ field: r.field, what: r.what, table: TABLES[r.collection]! }));
  return { name, resource, table: TABLES[name]!, kind: rule.kind, writers: rule.writers, references, ...hooks } as unknown as SyncCollection;
}

const quoteHooks: Hooks<typeof quoteResource> = {
  async onInsert(ctx, tx, doc) {
    const orgId = ctx.viewer.orgId;
    const { number, defaultTaxId } = await nextQuoteNumber(tx, orgId);
    const taxId = doc.taxId ?? defaultTaxId;
    const priced = await priceQuote(tx, orgId, doc.lineItems ?? [], taxId);
    return { ...doc, number, taxId, status: 'DRAFT', acceptedAt: null, pdfKey: null, createdById: ctx.viewer.userId, ...priced };
  },
  async onUpdate(ctx, tx, merged, master) {
    const changed = ['title', 'customerId', 'validUntil', 'lineItems', 'taxId', 'notes', 'terms'].some(
      (f) => JSON.stringify(merged[f] ?? null) !== JSON.stringify(master[f] ?? null),
    );
    if (!changed) return merged;
    assertEditable(master);
    const priced = await priceQuote(tx, ctx.viewer.orgId, merged.lineItems, merged.taxId);
    return { ...merged, ...priced };
  },
  refuse: (ctx, master) => whyMayNotChangeQuote(ctx.viewer, master),
};

export const SYNC_COLLECTIONS: readonly SyncCollection[] = [
  collection(organizationResource),
  collection(serviceTypeResource),
  collection(customerResource, {
    async onInsert(ctx, _tx, doc) {
      return { ...doc, createdById: ctx.viewer.userId };
    },
  }),
  collection(appointmentResource),
  collection(serviceResource, {
    // A technician's new visit is theirs unless it names someone (as createService does).
    async onInsert(ctx, _tx, doc) {
      // A new visit is on no invoice: INVOICED pushed with it is dropped, the visit kept (not quarantined for a flag).
      const billingStatus = whyBillingStatusRefused(null, doc.billingStatus) ? null : doc.billingStatus;
      const own = ctx.viewer.role === 'TECHNICIAN' ? ctx.viewer.userId : null;
      const chemistryVersion = versionToKeep(doc.chemicalReadings, doc.chemistryVersion);
      return { ...doc, billingStatus, newTechnicianId: doc.newTechnicianId ?? own, chemistryVersion, dateEmailed: null, dateTexted: null, createdById: ctx.viewer.userId };
    },
    // Readings from a client that stamps no formula version (a stock RxDB client) keep the current one.
    async onUpdate(_ctx, _tx, merged, master) {
      // Billing owns a billed visit's billingStatus (operations/billing/visit-billing-status.ts).
      assertBillingStatusWritable(master.billingStatus, merged.billingStatus);
      const chemistryVersion = versionToKeep(merged.chemicalReadings, merged.chemistryVersion);
      return chemistryVersion === merged.chemistryVersion ? merged : { ...merged, chemistryVersion };
    },
  }),
  collection(quoteResource, quoteHooks),
  collection(inventoryLocationResource),
  collection(inventoryItemResource, {
    async onInsert(_ctx, _tx, doc) {
      return { ...doc, quantity: 0 };
    },
  }),
  collection(stockLevelResource),
  collection(stockMovementResource, { recordEntry: recordMovement }),
  collection(invoiceResource),
  collection(paymentResource, { recordEntry: recordPayment }),
];

const byName = new Map(SYNC_COLLECTIONS.map((c) => [c.name, c]));

export function syncCollection(name: string): SyncCollection {
  const collection = byName.get(name);
  if (!collection) throw errors.notFound('Sync collection', name);
  return collection;
}
