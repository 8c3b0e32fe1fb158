import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';

/**
 * Who bills: the office's roles (ADMIN, OFFICE, API). A technician reads no invoices through
 * GraphQL: what a technician needs of billing (a customer's balance due, taking a payment) reaches
 * the phone through sync.
 */
export function requireBilling(ctx: OperationContext, action: string): void {
  requireRole(ctx.viewer, OFFICE_ROLES, action);
}
