import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { errors, type AppError } from '../../../shared/index.js';
import { HTTP_STATUS, restErrorBody, toAppError } from '../errors.js';

/**
 * Express error responders. REST and sync answer {"error": {"code", "message"}}; the GraphQL
 * endpoint answers errors raised before GraphQL runs (no token, body too large) in GraphQL's own
 * shape, so a GraphQL client reads them like any other error.
 */
export function restErrors(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    if (lateAnswer(error)) return;
    const app = toAppError(error, logger);
    // A stream that fails after its answer began (the database went away under a live stream)
    // cannot change its status any more: end it, and the client reconnects.
    if (res.headersSent) return void res.end();
    sendRestError(res, app);
  };
}

/** A handler answered after the request was already answered (REQUEST_TIMEOUT_MS): nothing to do. */
function lateAnswer(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'ERR_HTTP_HEADERS_SENT';
}

export type ErrorSender = (res: Response, error: AppError) => void;

export const sendRestError: ErrorSender = (res, error) => {
  res.status(HTTP_STATUS[error.kind]).json(restErrorBody(error));
};

export const sendGraphQLError: ErrorSender = (res, error) => {
  res
    .status(HTTP_STATUS[error.kind])
    .type('application/json')
    .send(JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.kind } }] }));
};

export function graphqlErrors(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    if (lateAnswer(error)) return;
    const app = toAppError(error, logger);
    if (res.headersSent) return void res.end();
    sendGraphQLError(res, app);
  };
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(errors.notFound('Route', `${req.method} ${req.path}`));
};
