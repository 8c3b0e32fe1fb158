import type { Queryable } from './db.js';

/**
 * The demo organization's history (server/demo-billing.ts): its sample work is made as if it
 * happened in the past, and so is one of its invoices. Finalizing dates an invoice today; this
 * moves a finalized invoice's issue and due dates back, so the demo shows an overdue invoice
 * whatever day it is first started. Nothing else calls it.
 */
export async function backdateInvoice(q: Queryable, orgId: string, id: string, dates: { issueDate: string; dueDate: string }): Promise<void> {
  await q.query(`update invoices set issue_date = $3, due_date = $4 where org_id = $1 and id = $2 and status in ('OPEN', 'PAID')`, [
    orgId,
    id,
    dates.issueDate,
    dates.dueDate,
  ]);
}
