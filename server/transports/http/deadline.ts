import type { RequestHandler } from 'express';
import { AppError } from '../../../shared/index.js';
import { sendRestError, type ErrorSender } from './errors.js';

/**
 * A request still unanswered `ms` after it arrived is answered 503 TIMEOUT, so a client is never
 * left waiting on a stuck query; on PostgreSQL the same limit cancels the statement itself
 * (statement_timeout), which frees the connection. A body still arriving at the deadline is the
 * client's link, not our work (Node's own requestTimeout bounds it): the request then gets `ms`
 * more from when the body is in. A response that has begun (a streamed CSV export) is making progress and is left to
 * finish; whatever the late handler still sends is dropped by the error responders (they end a
 * response whose headers are sent).
 */
export function answerWithin(ms: number, send: ErrorSender = sendRestError): RequestHandler {
  return (req, res, next) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = (delay: number, then: () => void) => {
      timer = setTimeout(then, delay);
      timer.unref();
    };
    const expire = () => {
      if (!res.headersSent) send(res, new AppError('TIMEOUT', `The request took longer than ${ms} ms (REQUEST_TIMEOUT_MS); try a narrower request`));
    };
    // At the deadline, a body still arriving means a slow link: wait for it, then allow `ms` more.
    const check = () => {
      if (req.complete) expire();
      else arm(BODY_POLL_MS, () => (req.complete ? arm(ms, expire) : check()));
    };
    arm(ms, check);
    res.once('close', () => clearTimeout(timer));
    res.once('finish', () => clearTimeout(timer));
    next();
  };
}

/** How often a request whose body is still arriving at its deadline is looked at again. */
const BODY_POLL_MS = 100;
