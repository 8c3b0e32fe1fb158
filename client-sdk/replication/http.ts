/**
 * The replication endpoint over HTTP: one pull or push per call. Any failure (no network, a 5xx,
 * an answer that is not the protocol's) throws, and RxDB's replication retries it later; the
 * caller never sees a half-applied batch.
 */
export interface SyncEndpoint {
  baseUrl: string;
  token: string;
  /** Injected for tests and for environments with their own fetch. */
  fetch?: typeof fetch;
}

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

async function call<T>(endpoint: SyncEndpoint, path: string, init: RequestInit = {}): Promise<T> {
  const res = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${endpoint.token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const text = await res.text();
  if (!res.ok) {
    let code = 'INTERNAL';
    let message = `HTTP ${res.status}`;
    try {
      const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
      code = body.error?.code ?? code;
      message = body.error?.message ?? message;
    } catch {
      // not JSON: keep the status
    }
    throw new SyncHttpError(res.status, code, message);
  }
  return JSON.parse(text) as T;
}

export function pullBatch<T>(endpoint: SyncEndpoint, collection: string, checkpoint: Checkpoint | undefined, limit: number) {
  const query = new URLSearchParams({ checkpoint: String(checkpoint?.seq ?? 0), limit: String(limit) });
  return call<PullAnswer<T>>(endpoint, `/sync/${encodeURIComponent(collection)}/pull?${query}`);
}

export function pushRows<T>(endpoint: SyncEndpoint, collection: string, rows: unknown[]): Promise<T[]> {
  return call<T[]>(endpoint, `/sync/${encodeURIComponent(collection)}/push`, { method: 'POST', body: JSON.stringify(rows) });
}
