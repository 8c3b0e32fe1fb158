import { Router } from 'express';
import type { AuthPolicy } from '../../operations/auth-policy.js';
import { redeemPhoneSignInCode } from '../../operations/sign-in-codes.js';
import type { Database } from '../../storage/db.js';
import { declaredBodyWithin, jsonBody } from '../http/bodies.js';
import type { AuthGate } from '../http/auth-throttle.js';

/** Bodies here are a code and a device name. */
const BODY_LIMIT = 2_048;

/**
 * `POST /phone-sign-in` `{code, deviceName}`: a phone trades the office's one-time code for a
 * TECHNICIAN token of its own, `201 {token, apiToken}`. Unauthenticated (the phone has nothing
 * yet), so the code goes through the gate on failed authentications as a credential of its own
 * kind: a wrong, used or expired code counts as one (the same code again is told so without a
 * lookup), and an address that spends its budget waits like one guessing tokens.
 */
export function phoneSignInRoute(db: Database, policy: AuthPolicy, gate: AuthGate): Router {
  const router = Router();
  router.post('/phone-sign-in', declaredBodyWithin(BODY_LIMIT), ...jsonBody(BODY_LIMIT), async (req, res) => {
    const code = (req.body as { code?: unknown } | undefined)?.code;
    const issued = await gate.pass(req, res, () => redeemPhoneSignInCode(db, req.body, policy), typeof code === 'string' ? code : '');
    // A credential: no cache on the way may keep it (RFC 6749's token responses say the same).
    res.status(201).set('cache-control', 'no-store').json({ token: issued.token, apiToken: issued.apiToken });
  });
  return router;
}
