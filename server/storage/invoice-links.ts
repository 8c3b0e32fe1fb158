import type { Queryable } from './db.js';

/** Links that open an invoice without signing in: only the token's hash is stored (see operations/billing/invoice-links.ts). */
export interface InvoiceLinkRow {
  orgId: string;
  id: string;
  invoiceId: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

const COLUMNS = `org_id as "orgId", id, invoice_id as "invoiceId", created_at as "createdAt", expires_at as "expiresAt", revoked_at as "revokedAt"`;

export async function insertInvoiceLink(q: Queryable, orgId: string, link: { id: string; invoiceId: string; tokenHash: string; days: number }): Promise<void> {
  await q.query(
    `insert into invoice_links (org_id, id, invoice_id, token_hash, expires_at) values ($1, $2, $3, $4, now() + make_interval(days => $5))`,
    [orgId, link.id, link.invoiceId, link.tokenHash, link.days],
  );
}

/** The link a token hash names while it is neither expired nor revoked. */
export async function liveInvoiceLink(q: Queryable, orgId: string, tokenHash: string): Promise<InvoiceLinkRow | null> {
  const { rows } = await q.query<InvoiceLinkRow>(
    `select ${COLUMNS} from invoice_links where org_id = $1 and token_hash = $2 and revoked_at is null and expires_at > now()`,
    [orgId, tokenHash],
  );
  return rows[0] ?? null;
}

/** Revokes every live link to the invoice; returns how many there were. */
export async function revokeInvoiceLinksOf(q: Queryable, orgId: string, invoiceId: string): Promise<number> {
  const { rowCount } = await q.query(
    `update invoice_links set revoked_at = now() where org_id = $1 and invoice_id = $2 and revoked_at is null and expires_at > now()`,
    [orgId, invoiceId],
  );
  return rowCount;
}

export async function invoiceLinksOf(q: Queryable, orgId: string, invoiceId: string): Promise<InvoiceLinkRow[]> {
  const { rows } = await q.query<InvoiceLinkRow>(`select ${COLUMNS} from invoice_links where org_id = $1 and invoice_id = $2 order by created_at, id`, [orgId, invoiceId]);
  return rows;
}
