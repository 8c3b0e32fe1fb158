/**
 * Errors are data: a closed set of kinds, each carried by an AppError with a message safe to show
 * to the caller. Transports map kinds to HTTP statuses and GraphQL codes in one table
 * (server/transports/errors.ts); anything that is not an AppError is INTERNAL and its details stay
 * in the server log.
 */
export const ERROR_KINDS = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'TIMEOUT',
  'VERSION_NOT_SUPPORTED',
  'INTERNAL',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Machine-readable extras, e.g. the offending field. Never secrets, never stack traces. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** Shorthands, so call sites read as what went wrong. */
export const errors = {
  unauthenticated: (message = 'A valid Authorization: Bearer <token> header is required', details?: Record<string, unknown>) =>
    new AppError('UNAUTHENTICATED', message, details),
  forbidden: (message: string) => new AppError('FORBIDDEN', message),
  notFound: (what: string, id: string) => new AppError('NOT_FOUND', `${what} ${id} was not found`),
  badInput: (message: string, details?: Record<string, unknown>) =>
    new AppError('BAD_USER_INPUT', message, details),
  conflict: (message: string) => new AppError('CONFLICT', message),
  payloadTooLarge: (message: string) => new AppError('PAYLOAD_TOO_LARGE', message),
  unsupportedMediaType: (message: string) => new AppError('UNSUPPORTED_MEDIA_TYPE', message),
  rateLimited: (message: string, retryAfterSeconds: number) => new AppError('RATE_LIMITED', message, { retryAfterSeconds }),
  /** The client speaks a sync protocol version this server does not serve (shared/sync/protocol-version.ts). */
  versionNotSupported: (message: string, versions: { clientVersion: number; minVersion: number; currentVersion: number }) =>
    new AppError('VERSION_NOT_SUPPORTED', message, versions),
};

/**
 * Why a credential that was presented is refused: the `reason` detail of an UNAUTHENTICATED error
 * (`{"error": {"code": "UNAUTHENTICATED", "message", "reason"}}`; GraphQL: in `extensions`), so a
 * device can tell the person which it was. A bearer token: `unknown` (never issued, or mistyped),
 * `revoked` (the office revoked it), `expired` (unused longer than the server allows). A phone
 * sign-in code: `code-unknown`, `code-used` (it works once), `code-expired`.
 */
export const REFUSAL_REASONS = ['unknown', 'revoked', 'expired', 'code-unknown', 'code-used', 'code-expired'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
