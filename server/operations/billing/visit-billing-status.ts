import { errors, VISIT_INVOICED } from '../../../shared/index.js';

/**
 * A visit's billingStatus follows its invoice: billing sets INVOICED when an invoice holding the
 * visit is finalized, and NOT_BILLED when that invoice is voided. From then on billing owns the
 * field: a value written by hand (GraphQL, a bulk change) or pushed by a device on a billed visit is
 * refused, and so is INVOICED written on any visit, so the field never says INVOICED for work no
 * invoice holds. Other values (READY, NOT_BILLED, NO_CHARGE, ...) remain the office's to write on
 * visits not billed.
 */
export function whyBillingStatusRefused(stored: string | null | undefined, written: string | null | undefined): string | null {
  if (written === undefined || (written ?? null) === (stored ?? null)) return null;
  if (stored === VISIT_INVOICED) {
    return 'billingStatus: the visit is on a finalized invoice and billing keeps its billingStatus; void the invoice to bill it again';
  }
  if (written === VISIT_INVOICED) return 'billingStatus: INVOICED is set by finalizing an invoice that holds the visit, never by hand';
  return null;
}

/** Throws BAD_USER_INPUT when the write is refused. */
export function assertBillingStatusWritable(stored: string | null | undefined, written: string | null | undefined): void {
  const refusal = whyBillingStatusRefused(stored, written);
  if (refusal) throw errors.badInput(refusal, { fields: ['billingStatus'] });
}
