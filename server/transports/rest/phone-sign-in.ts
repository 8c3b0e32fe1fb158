import { Router } from 'express';
import type { AuthPolicy } from '../../operations/auth-policy.js';
import { redeemPhoneSignInCode } from '../../operations/sign-in-codes.js';
import type { Database } from '../../storage/db.js';
import { declaredBodyWithin, jsonBody } from '../http/bodies.js';
import type { FailedAuthentication } from '../http/rate-limits.js';

/** Bodies here are a code and a device name. */
const BODY_LIMIT = 2_048;

/**
 * `POST /phone-sign-in` `{code, deviceName}`: a phone trades the office's one-time code for a
 * TECHNICIAN token of its own, `201 {token, apiToken}`. Unauthenticated (the phone has nothing
 * yet), so it runs through the guard on failed authentications: a wrong, used or expired code
 * counts as one, and an address that spends its budget waits like one guessing tokens.
 */
export function phoneSignInRoute(db: Database, policy: AuthPolicy, failures: FailedAuthentication): Router {
  const router = Router();
  router.post('/phone-sign-in', declaredBodyWithin(BODY_LIMIT), ...jsonBody(BODY_LIMIT), async (req, res) => {
    const issued = await failures.guard(req, res, () => redeemPhoneSignInCode(db, req.body, policy));
    // A credential: no cache on the way may keep it (RFC 6749's token responses say the same).
    res.status(201).set('cache-control', 'no-store').json({ token: issued.token, apiToken: issued.apiToken });
  });
  return router;
}
