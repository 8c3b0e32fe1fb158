import { PUSH_CHECKPOINT_HEADER } from '../../shared/index.js';
import { Call, expectedWithin, type CallScope } from './call.js';
import { failureOfAnswer, protocolFailure } from './failure.js';

/**
 * The replication endpoint over HTTP: one pull or push per call. Every call has a deadline of its
 * own (a dead cell tower accepts a connection and never answers), is watched for a dead
 * connection (see liveness.ts), and ends at once when the client is closed. Anything but a
 * protocol answer throws a SyncFailure of a known kind (failure.ts); the caller never sees a
 * half-applied batch.
 */
export interface SyncEndpoint extends CallScope {
  baseUrl: string;
  token: string;
  /** Injected for tests and for environments with their own fetch. */
  fetch?: typeof fetch;
  /** Deadline of one request, answer body included (default 30 s). */
  requestTimeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Past this (plus its body's time on a slow link) without an answer, a pull or push is presumed
 * dead once a newer request gets through (liveness.ts). The server answers a page of 5,000 in well
 * under a second; this leaves it a loaded morning's margin.
 */
const ANSWER_EXPECTED_MS = 10_000;

export interface Checkpoint {
  seq: number;
}

export interface PullAnswer<T> {
  documents: T[];
  checkpoint: Checkpoint;
}

/** A request with a JSON answer; `what` names it in errors ("pull services"). */
async function exchange(endpoint: SyncEndpoint, what: string, path: string, init: RequestInit = {}): Promise<{ body: unknown; headers: Headers }> {
  const timeoutMs = endpoint.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const call = new Call(endpoint, what, expectedWithin(ANSWER_EXPECTED_MS, typeof init.body === 'string' ? init.body.length : 0));
  call.deadline(timeoutMs);
  try {
    const res = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl}${path}`, {
      ...init,
      signal: call.signal,
      headers: { authorization: `Bearer ${endpoint.token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    });
    call.answered();
    const text = await call.until(res.text());
    if (!res.ok) throw failureOfAnswer(what, res.status, res.headers, text);
    return { body: parseJson(what, text), headers: res.headers };
  } catch (error) {
    throw call.failure(error);
  } finally {
    call.end();
  }
}

function parseJson(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw protocolFailure(what, 'the answer is not JSON');
  }
}

export async function pullBatch<T>(endpoint: SyncEndpoint, collection: string, checkpoint: Checkpoint | undefined, limit: number): Promise<PullAnswer<T>> {
  const what = `pull ${collection}`;
  const query = new URLSearchParams({ checkpoint: String(checkpoint?.seq ?? 0), limit: String(limit) });
  const { body } = await exchange(endpoint, what, `/sync/${encodeURIComponent(collection)}/pull?${query}`);
  const answer = body as Partial<PullAnswer<T>> | null;
  if (!Array.isArray(answer?.documents) || !Number.isSafeInteger(answer.checkpoint?.seq)) throw protocolFailure(what, 'the answer has no documents and checkpoint');
  return answer as PullAnswer<T>;
}

export async function pushRows<T>(endpoint: SyncEndpoint, collection: string, rows: unknown[]): Promise<T[]> {
  return (await pushWithCheckpoint<T>(endpoint, collection, rows, null)).answered;
}

export interface PushAnswer<T> {
  /** Server states to adopt. */
  answered: T[];
  /** Where the pull checkpoint may move once they are adopted (see shared/sync-protocol.ts), or null. */
  checkpoint: number | null;
}

/** A push that names the device's pull checkpoint, so the server can say the device need not pull its own writes back. */
export async function pushWithCheckpoint<T>(endpoint: SyncEndpoint, collection: string, rows: unknown[], checkpoint: number | null): Promise<PushAnswer<T>> {
  const what = `push ${collection}`;
  const path = `/sync/${encodeURIComponent(collection)}/push${checkpoint === null ? '' : `?checkpoint=${checkpoint}`}`;
  const { body, headers } = await exchange(endpoint, what, path, { method: 'POST', body: JSON.stringify(rows) });
  if (!Array.isArray(body)) throw protocolFailure(what, 'the answer is not an array of server states');
  const moved = Number(headers.get(PUSH_CHECKPOINT_HEADER));
  const valid = checkpoint !== null && headers.has(PUSH_CHECKPOINT_HEADER) && Number.isSafeInteger(moved) && moved >= checkpoint;
  return { answered: body as T[], checkpoint: valid ? moved : null };
}

/** The probe's own deadline: /healthz answers at once from any live server. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * A tiny request for the connection watch (liveness.ts): its answer shows the network works, so
 * requests overdue on dead connections are given up; its failure is trouble. /healthz needs no
 * token and touches no database.
 */
export async function probe(endpoint: SyncEndpoint): Promise<void> {
  const call = new Call(endpoint, 'probe', PROBE_TIMEOUT_MS);
  call.deadline(PROBE_TIMEOUT_MS);
  try {
    const res = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl}/healthz`, { signal: call.signal, cache: 'no-store' });
    call.answered();
    await call.until(res.arrayBuffer());
  } catch (error) {
    throw call.failure(error);
  } finally {
    call.end();
  }
}
