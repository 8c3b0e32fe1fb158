import express, { type RequestHandler } from 'express';
import { errors, jsonLimitProblem, MAX_JSON_NESTING } from '../../../shared/index.js';
import { sendRestError, type ErrorSender } from './errors.js';

/**
 * Request bodies at the edge. Every route that reads a body first refuses one whose declared
 * length is over its limit, at once and before authentication: body-parser and multer decide
 * such a refusal as soon as the headers are in, but answer only after reading the whole body, so
 * `content-length: 10000000000` held the connection (and the request's deadline) for as long as
 * the client cared to send. The answer carries `Connection: close` and the connection is ended
 * after it, so the body is never read. A body sent without a length (chunked) is still counted
 * by the parsers and refused once it passes the limit.
 */
export function declaredBodyWithin(limit: number, send: ErrorSender = sendRestError): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.get('content-length'));
    if (!(declared > limit)) return next();
    res.set('connection', 'close');
    // Node ends the connection once this answer is written (it carries Connection: close), without
    // waiting for the body.
    // The words body-parser uses for the same refusal, which clients (the SDK) show as the reason.
    send(res, errors.payloadTooLarge(`The request body is larger than the server accepts (${declared} bytes declared; at most ${limit})`));
  };
}

/**
 * A JSON body for a REST route (after `declaredBodyWithin` and authentication): parsed within the
 * limit, and refused when it nests deeper than MAX_JSON_NESTING, before any validator walks it.
 * Sync pushes check nesting per row instead, so one bad row does not take its batch down.
 */
export function jsonBody(limit: number): RequestHandler[] {
  return [express.json({ limit, strict: true }), jsonNestingWithin];
}

const jsonNestingWithin: RequestHandler = (req, _res, next) => {
  const problem = jsonLimitProblem(req.body, { depth: MAX_JSON_NESTING });
  next(problem ? errors.badInput(`The request body is JSON ${problem}: the server reads no deeper`) : undefined);
};
