import DataLoader from 'dataloader';
import type { WaterChemistrySettings } from '../../../shared/index.js';
import { chemistrySettings } from '../../operations/chemistry.js';
import type { OperationContext } from '../../operations/context.js';
import { customerRelations } from '../../operations/customers.js';
import { inventoryRelations } from '../../operations/inventory.js';
import { serviceRelations } from '../../operations/services.js';
import { getOrganization } from '../../operations/organization.js';
import { taxRelations } from '../../operations/catalog.js';
import { applicationsOf, linesOf } from '../../operations/billing/read.js';

/**
 * Per-request batch loaders for relation fields, so a page of 50 quotes loads its customers in
 * one query instead of 50. Created with each request's context and dropped with it.
 */
type Fetch<T> = (ctx: OperationContext, keys: readonly string[]) => Promise<T[]>;

function byId<T extends { id: string }>(ctx: OperationContext, fetch: Fetch<T>) {
  return new DataLoader<string, T | null>(async (ids) => {
    const found = new Map((await fetch(ctx, ids)).map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });
}

function groupedBy<T>(ctx: OperationContext, fetch: Fetch<T>, keyOf: (row: T) => string) {
  return new DataLoader<string, T[]>(async (keys) => {
    const groups = new Map<string, T[]>();
    for (const row of await fetch(ctx, keys)) {
      const key = keyOf(row);
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    return keys.map((key) => groups.get(key) ?? []);
  });
}

export function createLoaders(ctx: OperationContext) {
  let organization: ReturnType<typeof getOrganization> | null = null;
  return {
    /** The caller's organization, read once per request. */
    organization: () => (organization ??= getOrganization(ctx)),
    tax: byId(ctx, taxRelations.byIds),
    customer: byId(ctx, customerRelations.byIds),
    quotedPrices: groupedBy(ctx, customerRelations.quotedPrices, (p) => p.customerId),
    nextAppointment: groupedBy(ctx, customerRelations.nextAppointments, (a) => a.customerId),
    serviceType: byId(ctx, serviceRelations.types),
    location: byId(ctx, inventoryRelations.locations),
    stockLevels: groupedBy(ctx, inventoryRelations.stockLevels, (l) => l.itemId),
    invoiceLines: groupedBy(ctx, linesOf, (l) => l.invoiceId),
    invoiceApplications: groupedBy(ctx, applicationsOf, (a) => a.invoiceId),
    // Keyed by the organization: a page of visits reads its water chemistry settings once.
    chemistrySettings: new DataLoader<string, WaterChemistrySettings>(async (orgIds) => {
      const settings = await chemistrySettings(ctx);
      return orgIds.map(() => settings);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
