import { invoiceResource } from '../../shared/index.js';
import { recordTable } from './records.js';

/**
 * The record table of invoices as the sync path reads it (the device feeds, a push's locked
 * masters); payments' is storage/payments.ts. Billing's own storage keeps its queries beside its
 * operations.
 */
export const invoiceRecords = recordTable(invoiceResource);
