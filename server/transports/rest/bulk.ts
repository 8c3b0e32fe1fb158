import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import { DecimalQueryInteger } from '../../../shared/sync/decimal.js';
import {
  cancelBulkOperation,
  getBulkOperation,
  listBulkOperations,
  startBulkOperation,
  type BulkOperationView,
} from '../../operations/bulk/operations.js';
import { parseInput } from '../../operations/input.js';
import { declaredBodyWithin, jsonBody } from '../http/bodies.js';
import { baseUrlOf, type FileLinks } from '../http/file-links.js';
import { contextOf } from '../http/request-context.js';

/** A page size in the query: decimal digits only, as sync's checkpoints (Number() also read "0x10" and "1e3"). */
const ListQuery = z.object({ first: DecimalQueryInteger.optional() });

/**
 * Bulk operations over REST, the canonical interface:
 *   POST /bulk-operations {kind, ...payload} (+ Idempotency-Key) -> 202 progress
 *   GET  /bulk-operations/:id -> progress;  GET /bulk-operations?status=&kind=&first=&after=
 *   POST /bulk-operations/:id/cancel
 */
export function bulkRoutes(auth: RequestHandler, deps: { links: FileLinks; publicUrl: string | undefined; bodyLimitBytes: number; onStarted: () => void }): Router {
  const router = Router();
  const present = (req: Request, op: BulkOperationView) => {
    const { resultKey, ...rest } = op;
    return { ...rest, resultUrl: resultKey ? deps.links.urlFor(resultKey, baseUrlOf(req, deps.publicUrl)) : null };
  };

  router.post('/bulk-operations', declaredBodyWithin(deps.bodyLimitBytes), auth, ...jsonBody(deps.bodyLimitBytes), async (req, res) => {
    const { operation, created } = await startBulkOperation(contextOf(req), req.body, req.get('idempotency-key'));
    if (created) deps.onStarted();
    res.status(created ? 202 : 200).json(present(req, operation));
  });

  router.get('/bulk-operations', auth, async (req, res) => {
    const page = await listBulkOperations(contextOf(req), {
      status: req.query.status,
      kind: req.query.kind,
      first: parseInput(ListQuery, { first: req.query.first }).first,
      after: typeof req.query.after === 'string' ? req.query.after : undefined,
    });
    res.json({
      operations: page.edges.map((e) => present(req, e.node)),
      pageInfo: page.pageInfo,
    });
  });

  router.get('/bulk-operations/:id', auth, async (req, res) => {
    res.json(present(req, await getBulkOperation(contextOf(req), req.params.id as string)));
  });

  router.post('/bulk-operations/:id/cancel', auth, async (req, res) => {
    res.json(present(req, await cancelBulkOperation(contextOf(req), req.params.id as string)));
  });

  return router;
}
