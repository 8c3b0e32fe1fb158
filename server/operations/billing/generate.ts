import type { Customer } from '../../../shared/index.js';
import { sourcesBilled } from '../../storage/billable.js';
import { liveCustomersByIds, monthsBilledOf, quotedPricesOf, unbilledStockUsesOf, unbilledVisitsOf } from '../../storage/billable-batch.js';
import type { RunResult } from '../../storage/billing-runs.js';
import type { Queryable } from '../../storage/db.js';
import { taxesByIds } from '../../storage/taxes.js';
import type { Period } from './periods.js';
import { addToDrafts, NO_WORK, skipped } from './run-drafts.js';
import { flatSource, monthsToRead, priceUnbilled, whyNotBilled, type CustomerFacts, type Priced, type Unbilled } from './run-pricing.js';
import { NO_TAX, type AppliedTax, type BillingSettings } from './settings.js';

/**
 * The month's run for a chunk of customers (README, "The month's run"), set-based: the chunk's
 * customers and each kind of their unbilled facts are read in one statement each, priced in
 * memory (run-pricing.ts), and written back in one statement each (run-drafts.ts), so a chunk
 * costs the same dozen statements whatever its size. Answers one result per customer, in the
 * order given. Runs inside the chunk's transaction.
 */
export async function billCustomers(tx: Queryable, settings: BillingSettings, customerIds: readonly string[], period: Period, createdById: string | null): Promise<RunResult[]> {
  const found = new Map((await liveCustomersByIds(tx, settings.orgId, customerIds)).map((c) => [c.id, c]));
  const results = new Map<string, RunResult>();
  const eligible: Customer[] = [];
  for (const id of customerIds) {
    const customer = found.get(id);
    const refusal = customer ? whyNotBilled(customer) : 'deleted since the run started';
    if (refusal) results.set(id, skipped(id, refusal));
    else eligible.push(customer!);
  }

  const toBill = new Map<string, Unbilled[]>();
  for (const [customerId, priced] of await priceChunk(tx, settings, eligible, period)) {
    if ('skip' in priced) results.set(customerId, skipped(customerId, priced.skip));
    else if (!priced.lines.length) results.set(customerId, skipped(customerId, NO_WORK));
    else toBill.set(customerId, priced.lines);
  }
  for (const result of await addToDrafts(tx, settings, toBill, period, createdById)) results.set(result.customerId, result);
  return customerIds.map((id) => results.get(id)!);
}

/** Each customer's unbilled facts read for the whole chunk at once, then priced one by one. */
async function priceChunk(tx: Queryable, settings: BillingSettings, customers: readonly Customer[], period: Period): Promise<Map<string, Priced>> {
  const priced = new Map<string, Priced>();
  if (!customers.length) return priced;
  const { orgId } = settings;
  const ids = customers.map((c) => c.id);
  // One after another: a transaction is one connection, and pg refuses (from version 9; warns
  // today) queries queued on it at once.
  const visits = groupBy(await unbilledVisitsOf(tx, orgId, ids, period.start, period.end), byCustomer);
  const uses = groupBy(await unbilledStockUsesOf(tx, orgId, ids, period.start, period.end), byCustomer);
  const quoted = await quotedPricesOf(tx, orgId, ids);
  const taxes = await taxesOf(tx, settings, customers);
  const reads = customers.map((c) => ({ customer: c, ...monthsToRead(c, settings, period) }));
  const months = [...new Set(reads.flatMap((r) => r.months))];
  const billed = groupBy(await monthsBilledOf(tx, orgId, ids, months), byCustomer);
  const flatBilled = await sourcesBilled(tx, orgId, 'FLAT_RATE', reads.flatMap((r) => r.flatMonths.map((m) => flatSource(r.customer.id, m))));
  for (const customer of customers) {
    const facts: CustomerFacts = {
      customer,
      visits: visits.get(customer.id) ?? [],
      uses: uses.get(customer.id) ?? [],
      quoted: quoted.get(customer.id) ?? new Map(),
      tax: taxes.get(taxIdOf(settings, customer)) ?? NO_TAX,
      billed: new Map((billed.get(customer.id) ?? []).map((m) => [m.month, m])),
      flatBilled,
    };
    priced.set(customer.id, priceUnbilled(settings, period, facts));
  }
  return priced;
}

const byCustomer = (row: { customerId: string }) => row.customerId;

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/** The tax on a customer's lines: their own taxId, else the organization's defaultTaxId. */
const taxIdOf = (settings: BillingSettings, customer: Customer) => customer.taxId ?? settings.defaultTaxId;

/** The chunk's taxes by id, each read once (its percent now); a tax no longer there taxes nothing. */
async function taxesOf(tx: Queryable, settings: BillingSettings, customers: readonly Customer[]): Promise<Map<string | null, AppliedTax>> {
  const ids = [...new Set(customers.map((c) => taxIdOf(settings, c)).filter((id): id is string => id !== null))];
  const found = ids.length ? await taxesByIds(tx, settings.orgId, ids) : [];
  return new Map(found.map((t) => [t.id, { taxId: t.id, rate: t.rate }]));
}
