import { paymentApplicationResource, paymentResource } from '../../shared/index.js';
import type { Database } from '../../server/storage/db.js';
import { invoices } from '../../server/storage/invoices.js';
import { recordTable } from '../../server/storage/records.js';

/**
 * A payment applied to an invoice, written through storage (the payments operations are built
 * beside billing; move this onto recordPaymentIn when both are merged): the payment, its
 * application, and the invoice's amount paid and balance.
 */
const payments = recordTable(paymentResource);
const applications = recordTable(paymentApplicationResource);

export async function applyPaymentThroughStorage(db: Database, orgId: string, invoiceId: string, amount: number): Promise<void> {
  await db.transaction(async (tx) => {
    const invoice = (await invoices.findById(tx, orgId, invoiceId))!;
    const receivedAt = new Date().toISOString();
    const paymentId = `pay-${invoiceId}`;
    await payments.insert(tx, orgId, {
      id: paymentId,
      customerId: invoice.customerId,
      kind: 'PAYMENT',
      amount,
      currency: invoice.currency,
      method: 'CHECK',
      reference: '1001',
      receivedAt,
      invoiceIds: [invoiceId],
    });
    await applications.insert(tx, orgId, { id: `app-${invoiceId}`, paymentId, invoiceId, amount, appliedAt: receivedAt });
    const paid = invoice.amountPaid + amount;
    await invoices.update(tx, orgId, invoiceId, { amountPaid: paid, balanceDue: invoice.total - paid, status: paid >= invoice.total ? 'PAID' : 'OPEN' });
  });
}
