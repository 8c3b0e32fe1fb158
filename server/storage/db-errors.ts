import { AppError } from '../../shared/index.js';

/**
 * Database errors that mean "this value cannot be stored" (SQLSTATE class 22, data exceptions:
 * a NUL character in text, a number out of range) are the caller's bad input, not our bug. Both
 * drivers pass their errors through here, so such a request is a 400, like any other bad input.
 */
export function translateDatabaseError(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('22')) {
    const reason = code === '22021' || code === '22P05' ? 'text may not contain the NUL character (\\u0000)' : (error as Error).message;
    return new AppError('BAD_USER_INPUT', `A value could not be stored: ${reason}`, { sqlstate: code });
  }
  return error;
}
