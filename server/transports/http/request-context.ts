import type { Request, RequestHandler } from 'express';
import { errors } from '../../../shared/index.js';
import { authenticate } from '../../operations/auth.js';
import type { AuthPolicy } from '../../operations/auth-policy.js';
import type { OperationContext } from '../../operations/context.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Database } from '../../storage/db.js';
import type { AuthGate } from './auth-throttle.js';

/**
 * Authenticates every request of a protected router once and keeps the operation context on the
 * request, so handlers take it from there.
 */
const contexts = new WeakMap<Request, OperationContext>();

export function authenticateRequests({ db, blobs, gate, policy }: { db: Database; blobs: BlobStore; gate: AuthGate; policy: AuthPolicy }): RequestHandler {
  return async (req, res, next) => {
    try {
      const viewer = await gate.pass(req, res, () => authenticate(db, req.get('authorization'), policy));
      contexts.set(req, { db, blobs, viewer });
      next();
    } catch (error) {
      next(error);
    }
  };
}

export function contextOf(req: Request): OperationContext {
  const ctx = contexts.get(req);
  if (!ctx) throw errors.unauthenticated();
  return ctx;
}
