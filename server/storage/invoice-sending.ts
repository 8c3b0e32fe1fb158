import type { Queryable } from './db.js';

/** When an invoice was last emailed (set once the mail server accepted its email). */
export async function markInvoiceSent(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(`update invoices set sent_at = clock_timestamp() where org_id = $1 and id = $2`, [orgId, id]);
}

/** markInvoiceSent for several invoices, of any organizations, in one statement. */
export async function markInvoicesSent(q: Queryable, invoices: readonly { orgId: string; id: string }[]): Promise<void> {
  if (!invoices.length) return;
  await q.query(
    `update invoices i set sent_at = clock_timestamp()
       from unnest($1::text[], $2::text[]) as s(org_id, id)
      where i.org_id = s.org_id and i.id = s.id`,
    [invoices.map((i) => i.orgId), invoices.map((i) => i.id)],
  );
}
