import { AppError } from '../../shared/index.js';

/**
 * Database errors that mean "this value cannot be stored" (SQLSTATE class 22, data exceptions:
 * a NUL character in text, a number out of range) are the caller's bad input, not our bug. Both
 * drivers pass their errors through here, so such a request is a 400, like any other bad input.
 */
export function translateDatabaseError(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  // statement_timeout (REQUEST_TIMEOUT_MS on PostgreSQL) cancelled a statement that ran too long.
  if (code === '57014') return new AppError('TIMEOUT', 'The request took longer than the server allows; try a narrower request');
  if (typeof code === 'string' && code.startsWith('22')) {
    const reason = code === '22021' || code === '22P05' ? 'text may not contain the NUL character (\\u0000)' : (error as Error).message;
    return new AppError('BAD_USER_INPUT', `A value could not be stored: ${reason}`, { sqlstate: code });
  }
  return error;
}
