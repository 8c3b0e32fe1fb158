import { z } from 'zod';
import { errors, VISIT_INVOICED, type Invoice } from '../../../shared/index.js';
import { setVisitBillingStatus } from '../../storage/billable.js';
import { billedVisitIds, invoices, lockInvoice, markVoided } from '../../storage/invoices.js';
import type { OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { requireBilling } from './access.js';

/**
 * Voiding: a finalized invoice withdrawn. Its number stays (numbers are never reused), its lines are
 * released so the work they billed may be billed again, and its visits say NOT_BILLED again. It is
 * refused while payments are applied to it: reverse them first, so no payment is left pointing at
 * a withdrawn invoice and the customer's balance stays true. Voiding again answers it unchanged.
 */
const Reason = z.string().trim().min(1, 'give a reason').max(1000);

export const VISIT_NOT_BILLED = 'NOT_BILLED';

export async function voidInvoice(ctx: OperationContext, id: string, rawReason: unknown): Promise<Invoice> {
  requireBilling(ctx, 'void invoices');
  const reason = parseInput(Reason, rawReason);
  const orgId = ctx.viewer.orgId;
  return ctx.db.transaction(async (tx) => {
    const invoice = await lockInvoice(tx, orgId, id);
    if (!invoice) throw errors.notFound('Invoice', id);
    if (invoice.status === 'VOID') return invoice;
    if (invoice.status === 'DRAFT') throw errors.conflict(`Invoice ${id} is a DRAFT: delete it instead (a draft has no number to void)`);
    if (invoice.amountPaid !== 0) {
      throw errors.conflict(`Invoice ${invoice.number} has ${invoice.amountPaid} ${invoice.currency} of payments applied: reverse them before voiding it`);
    }
    await markVoided(tx, orgId, id, reason);
    await setVisitBillingStatus(tx, orgId, await billedVisitIds(tx, orgId, id), VISIT_NOT_BILLED, VISIT_INVOICED);
    return (await invoices.findById(tx, orgId, id))!;
  });
}
