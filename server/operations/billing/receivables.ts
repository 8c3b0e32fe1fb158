import { z } from 'zod';
import { errors, fromMinor, idValidator } from '../../../shared/index.js';
import { customers } from '../../storage/customers.js';
import { organizations } from '../../storage/organizations.js';
import { agingRows, balanceBefore, customerBalances, heldCustomers, statementEntries, type StatementEntryKind } from '../../storage/receivables.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { todayIn } from './periods.js';

/**
 * Reading what customers owe: balances (the office's and a technician's for its own customers),
 * a customer's statement and the receivables' aging (the office's). Amounts are decimals in the
 * organization's currency; the arithmetic is done in minor units.
 */

export interface Balances {
  balanceDue: number;
  creditBalance: number;
}

/**
 * Each customer's balance due and credit, in the order asked; null for a customer a technician
 * does not serve (its device does not hold them), so a list of customers still reads.
 */
export async function balancesOf(ctx: OperationContext, customerIds: readonly string[]): Promise<(Balances | null)[]> {
  const orgId = ctx.viewer.orgId;
  const visible = ctx.viewer.role === 'TECHNICIAN' ? await heldCustomers(ctx.db, orgId, ctx.viewer.userId, customerIds) : null;
  const byId = new Map((await customerBalances(ctx.db, orgId, customerIds)).map((b) => [b.customerId, b]));
  return customerIds.map((id) => {
    const found = byId.get(id);
    if (!found || (visible && !visible.has(id))) return null;
    return { balanceDue: found.balanceDue, creditBalance: found.creditBalance };
  });
}

const day = () => z.iso.date('must be a date such as 2026-01-31');
const StatementInput = z
  .strictObject({ customerId: idValidator(), from: day(), to: day() })
  .refine((s) => s.from <= s.to, { message: 'the period ends before it starts', path: ['to'] });

export interface StatementLine {
  date: string;
  kind: StatementEntryKind;
  invoiceId: string | null;
  paymentId: string | null;
  reference: string | null;
  method: string | null;
  /** Positive: owed (an invoice, a reversal); negative: paid. */
  amount: number;
  /** What was owed after this line (negative: the customer is in credit). */
  balance: number;
}

export interface CustomerStatement {
  customerId: string;
  from: string;
  to: string;
  currency: string;
  openingBalance: number;
  invoiced: number;
  paid: number;
  closingBalance: number;
  lines: StatementLine[];
}

/**
 * A customer's statement for two calendar days (both included): what was owed at the start, every
 * invoice issued and payment received (a reversal owes again) in date order with the running
 * balance, and what was owed at the end.
 */
export async function customerStatement(ctx: OperationContext, raw: { customerId: unknown; from: unknown; to: unknown }): Promise<CustomerStatement> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read customer statements');
  const input = parseInput(StatementInput, raw);
  const orgId = ctx.viewer.orgId;
  if (!(await customers.findById(ctx.db, orgId, input.customerId))) throw errors.notFound('Customer', input.customerId);
  const { currency } = (await organizations.findById(ctx.db, orgId, orgId))!;
  const opening = await balanceBefore(ctx.db, orgId, input.customerId, input.from);
  let running = opening;
  let invoiced = 0;
  let paid = 0;
  const lines = (await statementEntries(ctx.db, orgId, input.customerId, input.from, input.to)).map((e) => {
    running += e.amountMinor;
    if (e.kind === 'INVOICE') invoiced += e.amountMinor;
    else paid -= e.amountMinor;
    return {
      date: e.date,
      kind: e.kind,
      invoiceId: e.kind === 'INVOICE' ? e.id : null,
      paymentId: e.kind === 'INVOICE' ? null : e.id,
      reference: e.reference,
      method: e.method,
      amount: fromMinor(e.amountMinor, currency),
      balance: fromMinor(running, currency),
    };
  });
  const money = (minor: number) => fromMinor(minor, currency);
  return {
    customerId: input.customerId,
    from: input.from,
    to: input.to,
    currency,
    openingBalance: money(opening),
    invoiced: money(invoiced),
    paid: money(paid),
    closingBalance: money(running),
    lines,
  };
}

const AgingInput = z.strictObject({ asOf: day().nullish() });

export interface AgingBuckets {
  current: number;
  days1to30: number;
  days31to60: number;
  days61to90: number;
  over90: number;
  total: number;
}

export interface ReceivablesAging {
  asOf: string;
  currency: string;
  customers: (AgingBuckets & { customerId: string; customerName: string })[];
  totals: AgingBuckets;
}

const BUCKETS = ['current', 'days1to30', 'days31to60', 'days61to90', 'over90', 'total'] as const;

/**
 * What customers owed on a day (today in the organization's time zone by default), by days past
 * the due date: not yet due (current), 1-30, 31-60, 61-90, over 90; per customer and in total.
 */
export async function receivablesAging(ctx: OperationContext, raw: { asOf?: unknown }): Promise<ReceivablesAging> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read the receivables aging');
  const input = parseInput(AgingInput, { asOf: raw.asOf });
  const orgId = ctx.viewer.orgId;
  const { currency, timezone } = (await organizations.findById(ctx.db, orgId, orgId))!;
  const asOf = input.asOf ?? todayIn(timezone);
  const rows = await agingRows(ctx.db, orgId, asOf);
  const totals = Object.fromEntries(BUCKETS.map((b) => [b, fromMinor(rows.reduce((sum, r) => sum + r[b], 0), currency)])) as unknown as AgingBuckets;
  return {
    asOf,
    currency,
    customers: rows.map((r) => ({
      customerId: r.customerId,
      customerName: r.customerName,
      ...(Object.fromEntries(BUCKETS.map((b) => [b, fromMinor(r[b], currency)])) as unknown as AgingBuckets),
    })),
    totals,
  };
}
