import { PUSH_CHECKPOINT_HEADER } from '../../shared/index.js';

/**
 * The replication endpoint over HTTP: one pull or push per call. Every call has a deadline (a
 * dead cell tower accepts a connection and never answers) and ends at once when the client is
 * closed. Any failure (no network, a timeout, a 5xx, an answer that is not the protocol's)
 * throws; the caller retries later and never sees a half-applied batch.
 */
export interface SyncEndpoint {
  baseUrl: string;
  token: string;
  /** Injected for tests and for environments with their own fetch. */
  fetch?: typeof fetch;
  /** Deadline of one request, answer body included (default 30 s). */
  requestTimeoutMs?: number;
  /** Aborts every request in flight (the client's close()). */
  signal?: AbortSignal;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface Checkpoint {
  seq: number;
}

export interface PullAnswer<T> {
  documents: T[];
  checkpoint: Checkpoint;
}

export class SyncHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SyncHttpError';
  }
}

/** The request's own deadline combined with the client's abort signal. */
export function deadlineSignal(endpoint: Pick<SyncEndpoint, 'signal'>, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return endpoint.signal ? AbortSignal.any([endpoint.signal, timeout]) : timeout;
}

/**
 * `work`, unless `signal` aborts first. Node 20's fetch (undici 6) can leave a body read pending
 * forever when its request is aborted while the body streams, on a loaded machine
 * (nodejs/undici#4232, #4089). A deadline or a close() must end the call all the same.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Names a deadline as one, so status shows "timed out" rather than a bare abort. */
export function describeFailure(error: unknown, timeoutMs: number): Error {
  if (error instanceof DOMException && error.name === 'TimeoutError') return new Error(`no answer within ${timeoutMs} ms`);
  return error instanceof Error ? error : new Error(String(error));
}

async function call<T>(endpoint: SyncEndpoint, path: string, init: RequestInit = {}): Promise<T> {
  return (await answer<T>(endpoint, path, init)).body;
}

/** A call's parsed body and its headers. */
async function answer<T>(endpoint: SyncEndpoint, path: string, init: RequestInit = {}): Promise<{ body: T; headers: Headers }> {
  const timeoutMs = endpoint.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  let status = 0;
  let text: string;
  const signal = deadlineSignal(endpoint, timeoutMs);
  try {
    const res = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl}${path}`, {
      ...init,
      signal,
      headers: { authorization: `Bearer ${endpoint.token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    });
    status = res.status;
    text = await untilAborted(res.text(), signal);
    if (res.ok) return { body: JSON.parse(text) as T, headers: res.headers };
  } catch (error) {
    throw describeFailure(error, timeoutMs);
  }
  throw errorOf(status, text);
}

function errorOf(status: number, text: string): SyncHttpError {
  let code = 'INTERNAL';
  let message = `HTTP ${status}`;
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not JSON: keep the status
  }
  return new SyncHttpError(status, code, message);
}

export function pullBatch<T>(endpoint: SyncEndpoint, collection: string, checkpoint: Checkpoint | undefined, limit: number) {
  const query = new URLSearchParams({ checkpoint: String(checkpoint?.seq ?? 0), limit: String(limit) });
  return call<PullAnswer<T>>(endpoint, `/sync/${encodeURIComponent(collection)}/pull?${query}`);
}

export function pushRows<T>(endpoint: SyncEndpoint, collection: string, rows: unknown[]): Promise<T[]> {
  return call<T[]>(endpoint, `/sync/${encodeURIComponent(collection)}/push`, { method: 'POST', body: JSON.stringify(rows) });
}

export interface PushAnswer<T> {
  /** Server states to adopt. */
  answered: T[];
  /** Where the pull checkpoint may move once they are adopted (see shared/sync-protocol.ts), or null. */
  checkpoint: number | null;
}

/** A push that names the device's pull checkpoint, so the server can say the device need not pull its own writes back. */
export async function pushWithCheckpoint<T>(endpoint: SyncEndpoint, collection: string, rows: unknown[], checkpoint: number): Promise<PushAnswer<T>> {
  const path = `/sync/${encodeURIComponent(collection)}/push?checkpoint=${checkpoint}`;
  const { body, headers } = await answer<T[]>(endpoint, path, { method: 'POST', body: JSON.stringify(rows) });
  const moved = Number(headers.get(PUSH_CHECKPOINT_HEADER));
  return { answered: body, checkpoint: Number.isSafeInteger(moved) && moved >= checkpoint && headers.has(PUSH_CHECKPOINT_HEADER) ? moved : null };
}
