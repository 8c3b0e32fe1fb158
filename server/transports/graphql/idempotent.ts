import { getOperationAST } from 'graphql';
import { requestHash } from '../../operations/idempotency.js';
import { parseWithinNesting } from './limits.js';

/** What a GraphQL answer is kept as under its Idempotency-Key: exactly what was sent. */
export interface StoredGraphQLAnswer {
  status: number;
  /** graphql-http's headers (the content type it negotiated). */
  headers: Record<string, string>;
  body: string | null;
}

/**
 * The hash that makes two GraphQL requests the same request (query text, operation name and
 * variables), when the body is a mutation; null for anything else (queries ignore the key, and a
 * body that does not parse is left for graphql-http to answer as it always does).
 */
export function mutationRequestHash(rawBody: unknown): string | null {
  if (typeof rawBody !== 'string') return null;
  try {
    const { query, operationName, variables } = JSON.parse(rawBody) as { query?: unknown; operationName?: unknown; variables?: unknown };
    if (typeof query !== 'string') return null;
    const name = typeof operationName === 'string' ? operationName : null;
    if (getOperationAST(parseWithinNesting(query), name)?.operation !== 'mutation') return null;
    return requestHash('graphql', query, name, variables ?? null);
  } catch {
    return null;
  }
}

/**
 * Whether an answer may be kept for retries: not when it failed for a reason a retry may not
 * meet again (INTERNAL, TIMEOUT, or a 5xx), since the retry should then do the work afresh.
 */
export function keepable(status: number, body: string | null): boolean {
  if (status >= 500) return false;
  return !errorCodes(body).some((code) => code === 'INTERNAL' || code === 'TIMEOUT');
}

/**
 * An answer whose writes were rolled back must not show data as if it were stored: only its
 * errors are sent, and the client retries with the same key.
 */
export function withoutData(body: string | null): string | null {
  if (!body) return body;
  try {
    const { errors } = JSON.parse(body) as { errors?: unknown };
    return JSON.stringify({ errors, data: null });
  } catch {
    return body;
  }
}

/**
 * The answer as it is kept for replays: each value shown only once (a webhook signing secret) is
 * null in it. A retry with the key learns the request succeeded, never the secret again.
 */
export function withValuesNulled(body: string | null, values: readonly string[]): string | null {
  if (!body || !values.length) return body;
  return values.reduce((text, value) => text.split(JSON.stringify(value)).join('null'), body);
}

function errorCodes(body: string | null): string[] {
  if (!body) return [];
  try {
    const { errors } = JSON.parse(body) as { errors?: { extensions?: { code?: unknown } }[] };
    return Array.isArray(errors) ? errors.map((e) => String(e.extensions?.code ?? '')) : [];
  } catch {
    return [];
  }
}
