import { invoiceResource, paymentResource } from '../../shared/index.js';
import { recordTable } from './records.js';

/**
 * The record tables of invoices and payments as the sync path reads them (the device feeds, a
 * push's locked masters). Billing's own storage keeps its queries beside its operations.
 */
export const invoiceRecords = recordTable(invoiceResource);
export const paymentRecords = recordTable(paymentResource);
