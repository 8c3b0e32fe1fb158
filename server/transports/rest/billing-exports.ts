import { Router, type RequestHandler } from 'express';
import { pipeline } from 'node:stream/promises';
import { exportInvoices, exportPayments, INVOICE_CSV_COLUMNS, PAYMENT_CSV_COLUMNS } from '../../operations/billing/exports.js';
import { csvStream } from '../../operations/csv.js';
import { contextOf } from '../http/request-context.js';

/**
 * GET /invoices/export/csv?from=&to= and GET /payments/export/csv?from=&to= (YYYY-MM-DD, both
 * included, either optional): for an accounting import, streamed as read, never held whole.
 */
export function billingExportRoutes(auth: RequestHandler): Router {
  const router = Router();
  router.get('/invoices/export/csv', auth, async (req, res) => {
    const rows = exportInvoices(contextOf(req), { from: req.query.from, to: req.query.to });
    res.status(200).type('text/csv; charset=utf-8').attachment('invoices.csv');
    await pipeline(csvStream(rows, INVOICE_CSV_COLUMNS), res);
  });
  router.get('/payments/export/csv', auth, async (req, res) => {
    const rows = exportPayments(contextOf(req), { from: req.query.from, to: req.query.to });
    res.status(200).type('text/csv; charset=utf-8').attachment('payments.csv');
    await pipeline(csvStream(rows, PAYMENT_CSV_COLUMNS), res);
  });
  return router;
}
