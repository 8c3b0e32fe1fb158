import type { Queryable } from './db.js';

/**
 * When invoices were last emailed (set once the mail server accepted their emails): several, of any
 * organizations, in one statement (a round of the invoice-email worker).
 */
export async function markInvoicesSent(q: Queryable, invoices: readonly { orgId: string; id: string }[]): Promise<void> {
  if (!invoices.length) return;
  await q.query(
    `update invoices i set sent_at = clock_timestamp()
       from unnest($1::text[], $2::text[]) as s(org_id, id)
      where i.org_id = s.org_id and i.id = s.id`,
    [invoices.map((i) => i.orgId), invoices.map((i) => i.id)],
  );
}
