/**
 * Errors the SDK throws to the app: only for bad input to an action (checked before anything is
 * written). Network trouble is never thrown; it shows in `sync.status$`.
 */
export class PoolClientError extends Error {
  constructor(
    readonly code: 'BAD_INPUT' | 'NOT_FOUND',
    message: string,
  ) {
    super(message);
    this.name = 'PoolClientError';
  }
}

export const badInput = (message: string) => new PoolClientError('BAD_INPUT', message);
export const notFound = (what: string, id: string) => new PoolClientError('NOT_FOUND', `${what} ${id} is not in the local replica`);
