import { Router, type RequestHandler } from 'express';
import { pipeline } from 'node:stream/promises';
import { csvStream } from '../../operations/csv.js';
import { exportQuotes, QUOTE_CSV_COLUMNS } from '../../operations/exports.js';
import { contextOf } from '../http/request-context.js';

/** GET /quotes/export/csv?startDate=YYYY-MM-DD: streamed as it is read, never held whole. */
export function quoteExportRoute(auth: RequestHandler): Router {
  const router = Router();
  router.get('/quotes/export/csv', auth, async (req, res) => {
    const rows = exportQuotes(contextOf(req), { startDate: req.query.startDate });
    res.status(200).type('text/csv; charset=utf-8').attachment('quotes.csv');
    await pipeline(csvStream(rows, QUOTE_CSV_COLUMNS), res);
  });
  return router;
}
