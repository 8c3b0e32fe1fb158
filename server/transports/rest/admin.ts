import { timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { errors } from '../../../shared/index.js';
import { provisionOrganization } from '../../operations/organization.js';
import { bearerTokenOf } from '../../operations/auth.js';
import type { Database } from '../../storage/db.js';
import { declaredBodyWithin, jsonBody } from '../http/bodies.js';
import type { AuthGate } from '../http/auth-throttle.js';

/**
 * Platform administration: provisioning organizations. Guarded by PLATFORM_ADMIN_TOKEN in the
 * usual Authorization: Bearer header; without that setting the route answers 404, as if absent.
 */
export function adminRouter(db: Database, platformAdminToken: string | undefined, bodyLimit: number, gate: AuthGate): Router {
  const router = Router();
  router.post('/admin/organizations', declaredBodyWithin(bodyLimit), ...jsonBody(bodyLimit), async (req, res) => {
    if (!platformAdminToken) throw errors.notFound('Route', 'POST /admin/organizations');
    await gate.pass(req, res, () => {
      if (!sameSecret(bearerTokenOf(req.get('authorization')), platformAdminToken)) throw errors.unauthenticated('A valid platform admin token is required');
    });
    const provisioned = await provisionOrganization(db, req.body);
    res.status(201).json({
      organization: provisioned.organization,
      token: provisioned.token,
      user: { id: provisioned.apiToken.userId, role: provisioned.apiToken.role },
    });
  });
  return router;
}

/** Constant-time comparison, so response timing does not leak the secret. */
function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
