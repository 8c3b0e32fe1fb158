import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { errors, type AppError } from '../../../shared/index.js';
import { HTTP_STATUS, restErrorBody, toAppError } from '../errors.js';
import { redactedUrl } from './request-log.js';

/**
 * Express error responders. REST and sync answer {"error": {"code", "message"}}; the GraphQL
 * endpoint answers errors raised before GraphQL runs (no token, body too large) in GraphQL's own
 * shape, so a GraphQL client reads them like any other error.
 */
export function restErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (lateAnswer(error) || clientWentAway(req, error, logger)) return;
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

/**
 * The client closed the connection before its request had arrived whole (a phone losing signal
 * mid-upload): the parser's error says so ("Request aborted"). Nobody is left to answer, and it is
 * not our failure: logged as what it is, not as an unexpected error.
 */
function clientWentAway(req: Request, error: unknown, logger: Logger): boolean {
  if (req.complete || !(req.destroyed || req.socket.destroyed)) return false;
  logger.info({ method: req.method, url: redactedUrl(req.originalUrl), reason: error instanceof Error ? error.message : String(error) }, 'the client closed the connection before its request arrived whole');
  return true;
}

export type ErrorSender = (res: Response, error: AppError) => void;

export const sendRestError: ErrorSender = (res, error) => {
  res.status(HTTP_STATUS[error.kind]).json(restErrorBody(error));
};

export const sendGraphQLError: ErrorSender = (res, error) => {
  res
    .status(HTTP_STATUS[error.kind])
    .type('application/json')
    .send(JSON.stringify({ errors: [{ message: error.message, extensions: { ...error.details, code: error.kind } }] }));
};

export function graphqlErrors(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (lateAnswer(error) || clientWentAway(req, error, logger)) return;
    const app = toAppError(error, logger);
    if (res.headersSent) return void res.end();
    sendGraphQLError(res, app);
  };
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(errors.notFound('Route', `${req.method} ${req.path}`));
};
