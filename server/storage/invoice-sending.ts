import type { Queryable } from './db.js';

/** When an invoice was last emailed (set once the mail server accepted its email). */
export async function markInvoiceSent(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(`update invoices set sent_at = clock_timestamp() where org_id = $1 and id = $2`, [orgId, id]);
}
