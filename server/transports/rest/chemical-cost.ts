import { Router, type RequestHandler } from 'express';
import { pipeline } from 'node:stream/promises';
import { CHEMICAL_COST_CSV_COLUMNS, exportChemicalCost } from '../../operations/chemical-cost.js';
import { csvStream } from '../../operations/csv.js';
import { contextOf } from '../http/request-context.js';

/**
 * GET /chemical-cost/export/csv?from=&to=&customerId=: chemical cost per pool as CSV, streamed as
 * it is read (the same operation and checks as GraphQL `chemicalCost`).
 */
export function chemicalCostExportRoute(auth: RequestHandler): Router {
  const router = Router();
  router.get('/chemical-cost/export/csv', auth, async (req, res) => {
    const rows = exportChemicalCost(contextOf(req), { from: req.query.from, to: req.query.to, customerId: req.query.customerId });
    res.status(200).type('text/csv; charset=utf-8').attachment('chemical-cost.csv');
    await pipeline(csvStream(rows, CHEMICAL_COST_CSV_COLUMNS), res);
  });
  return router;
}
