import type { RequestHandler } from 'express';
import { AppError } from '../../../shared/index.js';
import { sendRestError, type ErrorSender } from './errors.js';

/**
 * A request still unanswered after `ms` is answered 503 TIMEOUT, so a client is never left
 * waiting on a stuck query; on PostgreSQL the same limit cancels the statement itself
 * (statement_timeout), which frees the connection. A response that has begun (a streamed CSV
 * export) is making progress and is left to finish; whatever the late handler still sends is
 * dropped by the error responders (they end a response whose headers are sent). Long-lived
 * routes (the sync stream) and uploads, whose length is the client's link speed, skip this.
 */
export function answerWithin(ms: number, send: ErrorSender = sendRestError): RequestHandler {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) {
        send(res, new AppError('TIMEOUT', `The request took longer than ${ms} ms (REQUEST_TIMEOUT_MS); try a narrower request`));
      }
    }, ms);
    timer.unref();
    res.once('close', () => clearTimeout(timer));
    res.once('finish', () => clearTimeout(timer));
    next();
  };
}
