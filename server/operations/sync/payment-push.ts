import type { Payment } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { recordPaymentIn } from '../billing/payments.js';
import type { OperationContext } from '../context.js';
import type { Doc } from './doc.js';
import type { LedgerRecord } from './ledger-entries.js';

/**
 * A payment a device took (a technician at the door, offline): recorded and applied by the same
 * operation as the office's (recordPaymentIn), in the push's transaction, once by its id; a
 * technician's for a customer its phone holds or held (taken offline before the office gave the
 * customer to someone else). Its refusals (a customer never on the technician's phone, another
 * currency, an invoice of someone else) are the operation's errors, which the push turns into a refusal of this row alone: kept in
 * quarantine for the office, answered with a tombstone.
 */
export async function recordPayment(ctx: OperationContext, tx: Queryable, doc: Doc): Promise<LedgerRecord> {
  // parseDocument checked `doc` against the payment resource: these fields are as declared.
  const sent = doc as Doc & Pick<Payment, 'customerId' | 'amount' | 'method'> & Partial<Pick<Payment, 'currency' | 'reference' | 'receivedAt' | 'invoiceIds'>>;
  const payment = await recordPaymentIn(tx, ctx, {
    id: sent.id,
    customerId: sent.customerId,
    amount: sent.amount,
    currency: sent.currency ?? null,
    method: sent.method,
    reference: sent.reference ?? null,
    receivedAt: sent.receivedAt ?? null,
    invoiceIds: sent.invoiceIds ?? null,
  }, { takenOnDevice: true });
  return { entry: payment, applied: true };
}
