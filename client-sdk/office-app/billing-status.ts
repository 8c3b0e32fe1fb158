import { VISIT_INVOICED } from '../../shared/index.js';

/**
 * The billingStatus values the office picks for a visit. INVOICED is not among them: the server
 * sets it when an invoice holding the visit is finalized, and from then on keeps it (a change is
 * refused) until that invoice is voided. A billed visit shows it, not to be changed here.
 */
const OFFICE_CHOICES = ['', 'NOT_BILLED', 'READY', 'NO_CHARGE'];

export function billingStatusChoices(stored: string | null | undefined): { values: string[]; locked: boolean } {
  return stored === VISIT_INVOICED ? { values: [VISIT_INVOICED], locked: true } : { values: OFFICE_CHOICES, locked: false };
}

export const BILLED_HINT = 'Set by its invoice; void the invoice to change it';
