import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { errors } from '../../../shared/index.js';
import { HTTP_STATUS, restErrorBody, toAppError } from '../errors.js';

/**
 * Express error responders. REST and sync answer {"error": {"code", "message"}}; the GraphQL
 * endpoint answers errors raised before GraphQL runs (no token, body too large) in GraphQL's own
 * shape, so a GraphQL client reads them like any other error.
 */
export function restErrors(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const app = toAppError(error, logger);
    // A stream that fails after its answer began (the database went away under a live stream)
    // cannot change its status any more: end it, and the client reconnects.
    if (res.headersSent) return void res.end();
    res.status(HTTP_STATUS[app.kind]).json(restErrorBody(app));
  };
}

export function graphqlErrors(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const app = toAppError(error, logger);
    res
      .status(HTTP_STATUS[app.kind])
      .type('application/json')
      .send(JSON.stringify({ errors: [{ message: app.message, extensions: { code: app.kind } }] }));
  };
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(errors.notFound('Route', `${req.method} ${req.path}`));
};
