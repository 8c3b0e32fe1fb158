import { Router, type RequestHandler } from 'express';
import { errors } from '../../../shared/index.js';
import { transferInventory } from '../../operations/inventory.js';
import { declaredBodyWithin, jsonBody } from '../http/bodies.js';
import { idempotentWrite } from '../http/idempotent-routes.js';

/** POST /inventory/transfer: the same operation and rules as the GraphQL transferInventory. */
export function inventoryRoutes(auth: RequestHandler, bodyLimit: number): Router {
  const router = Router();
  router.post(
    '/inventory/transfer',
    declaredBodyWithin(bodyLimit),
    auth,
    ...jsonBody(bodyLimit),
    idempotentWrite(async (req, ctx) => {
      if (!req.is('application/json')) throw errors.unsupportedMediaType('Send the transfer as JSON (Content-Type: application/json)');
      const result = await transferInventory(ctx, req.body);
      const body = {
        success: result.success,
        item: { id: result.item.id, name: result.item.name },
        fromLocation: { id: result.fromLocation.id, name: result.fromLocation.name },
        toLocation: { id: result.toLocation.id, name: result.toLocation.name },
        quantity: result.quantity,
        movementId: result.movement.id,
      };
      return { status: 200, body };
    }),
  );
  return router;
}
