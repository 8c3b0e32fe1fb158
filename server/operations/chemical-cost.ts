import { z } from 'zod';
import { errors, fromMinor, sumMinor, toMinor } from '../../shared/index.js';
import { chemicalUse, type ChemicalUseRow } from '../storage/chemical-cost.js';
import { organizations } from '../storage/organizations.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import type { CsvColumn } from './csv.js';
import { parseInput } from './input.js';

/**
 * Chemical cost per pool: for visits starting in [from, to), the units of each chemical used on a
 * customer's visits (doses and their corrections, and any other use of a CHEMICAL item) times the
 * item's cost price, per chemical and in total, in the organization's currency. The cost price is
 * the item's current one (the catalog keeps no price history).
 */
const moment = z.union([z.iso.datetime({ offset: true }), z.iso.date()], 'must be a date (2026-11-01) or a date and time (2026-11-01T00:00:00Z)');
const CostInput = z
  .strictObject({ from: moment, to: moment, customerId: z.string().min(1).max(128).nullish() })
  .refine((i) => Date.parse(i.to) > Date.parse(i.from), { message: 'must be after from', path: ['to'] });

export interface ChemicalCostLine {
  itemId: string;
  itemName: string;
  chemical: string | null;
  unit: string | null;
  units: number;
  unitCost: number | null;
  cost: number | null;
}

export interface CustomerChemicalCost {
  customerId: string;
  customerName: string;
  lines: ChemicalCostLine[];
  /** The lines' cost; lines without a cost price count nothing (see `unpricedUnits`). */
  total: number;
  /** Units used of items that have no cost price. */
  unpricedUnits: number;
}

export interface ChemicalCostReport {
  from: string;
  to: string;
  currency: string;
  customers: CustomerChemicalCost[];
  total: number;
}

function authorize(ctx: OperationContext, raw: unknown) {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read chemical costs');
  const input = parseInput(CostInput, raw);
  return { ...input, from: new Date(input.from).toISOString(), to: new Date(input.to).toISOString() };
}

export async function chemicalCost(ctx: OperationContext, raw: unknown): Promise<ChemicalCostReport> {
  const input = authorize(ctx, raw);
  const org = await organizations.findById(ctx.db, ctx.viewer.orgId, ctx.viewer.orgId);
  if (!org) throw errors.notFound('Organization', ctx.viewer.orgId);
  const currency = org.currency;
  const customers = byCustomer(await chemicalUse(ctx.db, ctx.viewer.orgId, input), currency);
  return { from: input.from, to: input.to, currency, customers, total: fromMinor(sumMinor(customers.map((c) => toMinor(c.total, currency))), currency) };
}

function byCustomer(rows: readonly ChemicalUseRow[], currency: string): CustomerChemicalCost[] {
  const customers = new Map<string, CustomerChemicalCost>();
  for (const { customerId, customerName, ...line } of rows) {
    let customer = customers.get(customerId);
    if (!customer) customers.set(customerId, (customer = { customerId, customerName, lines: [], total: 0, unpricedUnits: 0 }));
    customer.lines.push(line);
    if (line.cost == null) customer.unpricedUnits += line.units;
    else customer.total = fromMinor(toMinor(customer.total, currency) + toMinor(line.cost, currency), currency);
  }
  return [...customers.values()];
}

/** One CSV row per customer and item, the customer's total on each of its rows. */
export type ChemicalCostCsvRow = ChemicalUseRow & { customerTotal: number; currency: string };

export const CHEMICAL_COST_CSV_COLUMNS: readonly CsvColumn<ChemicalCostCsvRow>[] = [
  { header: 'customer id', value: (r) => r.customerId },
  { header: 'customer name', value: (r) => r.customerName },
  { header: 'item', value: (r) => r.itemName },
  { header: 'chemical', value: (r) => r.chemical },
  { header: 'units used', value: (r) => r.units },
  { header: 'unit', value: (r) => r.unit },
  { header: 'unit cost', value: (r) => r.unitCost },
  { header: 'cost', value: (r) => r.cost },
  { header: 'customer total', value: (r) => r.customerTotal },
  { header: 'currency', value: (r) => r.currency },
];

const CUSTOMERS_PER_BATCH = 1000;

/** Validates the request up front (so a bad one fails before any byte is sent), then streams by batches of customers. */
export function exportChemicalCost(ctx: OperationContext, raw: unknown): AsyncIterable<ChemicalCostCsvRow> {
  const input = authorize(ctx, raw);
  return (async function* () {
    const org = await organizations.findById(ctx.db, ctx.viewer.orgId, ctx.viewer.orgId);
    const currency = org?.currency ?? '';
    let after: string | null = null;
    for (;;) {
      const batch = byCustomer(await chemicalUse(ctx.db, ctx.viewer.orgId, { ...input, afterCustomerId: after, customers: CUSTOMERS_PER_BATCH }), currency);
      for (const customer of batch) {
        for (const line of customer.lines) yield { ...line, customerId: customer.customerId, customerName: customer.customerName, customerTotal: customer.total, currency };
      }
      if (batch.length < CUSTOMERS_PER_BATCH) return;
      after = batch.at(-1)!.customerId;
    }
  })();
}
