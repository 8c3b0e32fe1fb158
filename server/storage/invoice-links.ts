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

/** Links for several invoices, of any organizations, in one statement (a round of invoice emails). */
export async function insertInvoiceLinks(q: Queryable, links: { orgId: string; id: string; invoiceId: string; tokenHash: string; days: number }[]): Promise<void> {
  if (!links.length) return;
  await q.query(
    `insert into invoice_links (org_id, id, invoice_id, token_hash, expires_at)
     select l.org_id, l.id, l.invoice_id, l.token_hash, now() + make_interval(days => l.days)
       from jsonb_to_recordset($1::jsonb) as l(org_id text, id text, invoice_id text, token_hash text, days int)`,
    [JSON.stringify(links.map((l) => ({ org_id: l.orgId, id: l.id, invoice_id: l.invoiceId, token_hash: l.tokenHash, days: l.days })))],
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
