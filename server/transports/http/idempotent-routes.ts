import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { OperationContext } from '../../operations/context.js';
import { doOnce, requestHash } from '../../operations/idempotency.js';
import { contextOf } from './request-context.js';

/** What a REST write answers: kept as is under its Idempotency-Key. */
export interface RestAnswer {
  status: number;
  body: unknown;
}

/**
 * A REST write that honours Idempotency-Key (see operations/idempotency.ts). Without the header it
 * runs as any route. With it, it runs in one transaction with the key, and a retry gets the stored
 * answer (header Idempotent-Replayed: true). An error thrown by `write` rolls everything back and
 * is answered as usual; the key stays free, so a retry does the write afresh.
 */
export function idempotentWrite(write: (req: Request, ctx: OperationContext) => Promise<RestAnswer>): RequestHandler {
  return async (req, res) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return send(res, await write(req, contextOf(req)), false);
    const { answer, replayed } = await doOnce(contextOf(req), key, restRequestHash(req), async (ctx) => ({ answer: await write(req, ctx), keep: true }));
    send(res, answer, replayed);
  };
}

function send(res: Response, answer: RestAnswer, replayed: boolean): void {
  if (replayed) res.set('idempotent-replayed', 'true');
  res.status(answer.status).json(answer.body);
}

/** Method, path and query, the body's fields and the uploaded file's bytes make the request. */
function restRequestHash(req: Request): string {
  const file = req.file ? { field: req.file.fieldname, name: req.file.originalname, type: req.file.mimetype, sha256: sha256(req.file.buffer) } : null;
  return requestHash('rest', req.method, req.originalUrl, req.body ?? null, file);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
