import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { AppError, isAppError, type ErrorKind } from '../../shared/index.js';

/**
 * The one table from error kind to HTTP status. GraphQL puts the kind in
 * errors[].extensions.code; REST and sync answer {"error": {"code", "message"}} with the status.
 */
export const HTTP_STATUS: Record<ErrorKind, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  TIMEOUT: 503,
  // Upgrade Required: the client must update before it is served. Not 400 or 413: apps installed
  // before protocol versions set a change aside for good when a push is refused with those, while
  // any other 4xx leaves their outbox as it is, retried later; and not 401, which signs them out.
  VERSION_NOT_SUPPORTED: 426,
  INTERNAL: 500,
};

/** Kinds for errors raised by libraries (body parsers, graphql-http) that carry only a status. */
export function kindOfStatus(status: number): ErrorKind {
  const match = (Object.entries(HTTP_STATUS) as [ErrorKind, number][]).find(([, s]) => s === status);
  if (match) return match[0];
  return status >= 500 ? 'INTERNAL' : 'BAD_USER_INPUT';
}

/**
 * Turns anything thrown into an AppError that is safe to send. Unknown errors are logged with
 * their stack here and leave as INTERNAL with a generic message.
 */
export function toAppError(error: unknown, logger: Logger): AppError {
  if (isAppError(error)) return error;
  const status = httpStatusOf(error);
  if (status && status < 500) {
    return new AppError(kindOfStatus(status), publicMessageOf(error, status));
  }
  logger.error({ err: error }, 'unexpected error');
  return new AppError('INTERNAL', 'Internal server error');
}

/** Errors from body-parser and friends carry `status` (or `statusCode`) and `expose`. */
function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { status?: unknown; statusCode?: unknown };
  const status = e.status ?? e.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function publicMessageOf(error: unknown, status: number): string {
  const e = error as { expose?: boolean; message?: string; type?: string };
  if (e.type === 'entity.too.large') return 'The request body is larger than the server accepts';
  if (e.type === 'entity.parse.failed') return 'The request body is not valid JSON';
  return e.expose && e.message ? e.message : `Request failed with status ${status}`;
}

export function restErrorBody(error: AppError) {
  return { error: { code: error.kind, message: error.message, ...(error.details ?? {}) } };
}

/** For graphql-http's formatError: every error leaves with a code from the closed set. */
export function formatGraphQLError(error: Readonly<GraphQLError | Error>, logger: Logger): GraphQLError {
  if (!(error instanceof GraphQLError)) {
    // graphql-http passes plain Errors here only for requests it could not read (unparsable
    // JSON, missing query): the caller's mistake, with a message written for the caller.
    const app = isAppError(error) ? error : new AppError('BAD_USER_INPUT', error.message);
    return new GraphQLError(app.message, { extensions: { code: app.kind } });
  }
  // Without an original error (or with graphql-js's own), the document failed to parse or
  // validate, or a variable did not coerce: the caller's mistake, and graphql-js's message says
  // where. Errors thrown by our code keep their kind.
  const cause = error.originalError;
  let kind: ErrorKind = 'BAD_USER_INPUT';
  let message = error.message;
  let details: Record<string, unknown> | undefined;
  if (cause && !(cause instanceof GraphQLError)) {
    const app = toAppError(cause, logger);
    kind = app.kind;
    details = app.details;
    // Inside execution the resolver's message is the whole story; while coercing variables
    // graphql-js prefixes which variable failed, which is worth keeping (unless INTERNAL).
    if (error.path !== undefined || kind === 'INTERNAL') message = app.message;
  }
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...(details ?? {}), code: kind },
  });
}
