import { createHash, randomBytes } from 'node:crypto';
import { errors } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { insertInvoiceLinks, invoiceLinksOf, liveInvoiceLink, revokeInvoiceLinksOf, type InvoiceLinkRow } from '../../storage/invoice-links.js';
import { invoices } from '../../storage/invoices.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';

/**
 * Links that open an invoice without signing in, as visit reports have: `/invoice/<token>` (the
 * page) and `/invoice/<token>/pdf` (its PDF), for the customer its email went to. The token is
 * `<organization id>_<32 random bytes, base64url>`, unguessable; only its SHA-256 is stored, so the
 * database alone opens no invoice. The organization part routes the lookup and grants nothing. A
 * link works for INVOICE_LINK_DAYS unless the office revokes the invoice's links first.
 */
export const tokenHashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Stands in a queued invoice email for its link until the email is sent: the outbox keeps no token,
 * and each sending makes its own link. A private-use character (as REPORT_LINK is), so nothing a
 * person typed is taken for it.
 */
export const INVOICE_LINK = '\uE001';

/** The path of an invoice's page; its PDF and the logo are under it. */
export const invoicePagePath = (token: string) => `/invoice/${token}`;

/** A link to each invoice (of any organizations), made in one statement; the tokens in the invoices' order. */
export async function issueInvoiceLinks(q: Queryable, invoices: readonly { orgId: string; invoiceId: string }[], days: number): Promise<string[]> {
  const tokens = invoices.map((i) => `${i.orgId}_${randomBytes(32).toString('base64url')}`);
  await insertInvoiceLinks(q, invoices.map((i, n) => ({ orgId: i.orgId, id: newId(), invoiceId: i.invoiceId, tokenHash: tokenHashOf(tokens[n]!), days })));
  return tokens;
}

/** The invoice a token opens, or null for a token never issued, expired or revoked. */
export async function openInvoiceLink(q: Queryable, token: string): Promise<InvoiceLinkRow | null> {
  const orgId = /^([A-Za-z0-9._~-]+)_[A-Za-z0-9_-]{43}$/.exec(token)?.[1];
  if (!orgId) return null;
  return liveInvoiceLink(q, orgId, tokenHashOf(token));
}

async function officeInvoice(ctx: OperationContext, invoiceId: string, action: string): Promise<void> {
  requireRole(ctx.viewer, OFFICE_ROLES, action);
  if (!(await invoices.findById(ctx.db, ctx.viewer.orgId, invoiceId))) throw errors.notFound('Invoice', invoiceId);
}

/** Withdraws every link to the invoice (ADMIN, OFFICE, API); returns how many were live. */
export async function revokeInvoiceLinks(ctx: OperationContext, invoiceId: string): Promise<number> {
  await officeInvoice(ctx, invoiceId, "revoke an invoice's links");
  return revokeInvoiceLinksOf(ctx.db, ctx.viewer.orgId, invoiceId);
}

/** Every link to the invoice made so far, oldest first (ADMIN, OFFICE, API). */
export async function linksOfInvoice(ctx: OperationContext, invoiceId: string): Promise<InvoiceLinkRow[]> {
  await officeInvoice(ctx, invoiceId, "read an invoice's links");
  return invoiceLinksOf(ctx.db, ctx.viewer.orgId, invoiceId);
}
