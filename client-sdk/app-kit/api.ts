import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import { Call, expectedWithin } from '../replication/call.js';
import { protocolHeaders } from '../replication/protocol.js';

/**
 * The office app's calls to the server beyond sync: GraphQL operations (where the server's rules
 * decide, e.g. quote numbers and transitions) and the REST uploads. Errors arrive as ApiError with
 * the server's code, so a screen can say what went wrong in words.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** An operation's text, typed with its answer and variables (generated from the app's `operations.graphql`). */
export type Operation<R, V> = DocumentTypeDecoration<R, V> & { toString(): string };

export interface Api {
  graphql<R, V>(operation: Operation<R, V>, variables?: V): Promise<R>;
  rest<T = any>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** multipart/form-data POST of one file (and text fields), as the upload endpoints take it. */
  upload<T = any>(path: string, file: Blob, fields?: Record<string, string>): Promise<T>;
}

/** REST errors are `{error: {code, message}}`; GraphQL ones `{errors: [{message, extensions: {code}}]}`. */
interface ErrorBody {
  error?: { code: string; message: string };
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** A call's deadline, its answer included (an upload's grows with its size, as the SDK's do). */
const TIMEOUT_MS = 30_000;

/** Calls with the token, or without any (`null`: the one unauthenticated call, a phone trading its sign-in code). */
export function createApi(baseUrl: string, token: string | null): Api {
  // The sync protocol version too: a server that no longer syncs with this app says so here as well.
  const headers: Record<string, string> = { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...protocolHeaders() };
  async function send<T>(path: string, init: RequestInit, bodyBytes = 0): Promise<T> {
    // Its own AbortController and timer (call.ts): a deadline no garbage collection can take away.
    const call = new Call({}, path, TIMEOUT_MS);
    call.deadline(expectedWithin(TIMEOUT_MS, bodyBytes));
    let response: Response;
    let body: ErrorBody | null;
    try {
      response = await fetch(`${baseUrl}${path}`, { ...init, headers: { ...headers, ...init.headers }, signal: call.signal });
      body = (await call.until(response.json()).catch((error: unknown) => (call.signal.aborted ? Promise.reject(error) : null))) as ErrorBody | null;
    } catch {
      throw new ApiError('The server cannot be reached, or did not answer in time. Check the connection and try again.', 'OFFLINE');
    } finally {
      call.end();
    }
    if (response.ok) return body as T;
    const error = body?.error ?? { message: body?.errors?.[0]?.message, code: body?.errors?.[0]?.extensions?.code };
    throw new ApiError(error.message ?? `The server answered ${response.status}`, error.code ?? `HTTP_${response.status}`);
  }
  return {
    async graphql<R, V>(operation: Operation<R, V>, variables?: V): Promise<R> {
      const body = await send<ErrorBody & { data?: R }>('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
        body: JSON.stringify({ query: operation.toString(), variables }),
      });
      const first = body.errors?.[0];
      if (first || body.data === undefined) throw new ApiError(first?.message ?? 'The server answered without data', first?.extensions?.code ?? 'ERROR');
      return body.data;
    },
    rest: (method, path, body, extra = {}) =>
      send(path, body === undefined ? { method, headers: extra } : { method, headers: { ...extra, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    upload(path, file, fields = {}) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('file', file);
      return send(path, { method: 'POST', body: form }, file.size);
    },
  };
}
