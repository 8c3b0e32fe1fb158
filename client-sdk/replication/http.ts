import type * as z from 'zod';
import { describeIssues, formatHeldAt, PullAnswer, type HeldBand, PushAnswer as PushAnswerBody, PUSH_CHECKPOINT_HEADER, type Checkpoint, type DocState } from '../../shared/index.js';
import { Call, expectedWithin, type CallScope } from './call.js';
import { failureOfAnswer, protocolFailure } from './failure.js';
import { protocolHeaders } from './protocol.js';

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
  /** The sync protocol version requests name (default: this build's, protocol.ts); 0 names none. */
  protocolVersion?: number;
}

/** What every request of the endpoint carries: its token, and the protocol version it speaks. */
export function endpointHeaders(endpoint: SyncEndpoint): Record<string, string> {
  return { authorization: `Bearer ${endpoint.token}`, ...protocolHeaders(endpoint.protocolVersion) };
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Past this (plus its body's time on a slow link) without an answer, a pull or push is presumed
 * dead once a newer request gets through (liveness.ts). The server answers a page of 5,000 in well
 * under a second; this leaves it a loaded morning's margin.
 */
const ANSWER_EXPECTED_MS = 10_000;

/** A request with a JSON answer; `what` names it in errors ("pull services"). */
async function exchange(endpoint: SyncEndpoint, what: string, path: string, init: RequestInit = {}): Promise<{ body: unknown; headers: Headers }> {
  const timeoutMs = endpoint.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const call = new Call(endpoint, what, expectedWithin(ANSWER_EXPECTED_MS, typeof init.body === 'string' ? init.body.length : 0));
  call.deadline(timeoutMs);
  try {
    const res = await (endpoint.fetch ?? fetch)(`${endpoint.baseUrl}${path}`, {
      ...init,
      signal: call.signal,
      headers: { ...endpointHeaders(endpoint), ...(init.body ? { 'content-type': 'application/json' } : {}) },
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

/** An answer checked against the protocol's schema (shared/sync): anything else is a protocol failure, in words. */
function checked<S extends z.ZodType>(schema: S, what: string, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw protocolFailure(what, `the answer is not the protocol's (${describeIssues(result.error.issues, { limit: 3 })})`);
  return result.data;
}

/** A priority band's time range (shared/sync/priorities.ts, `bandRange`). */
export interface BandRange {
  from: string;
  to: string;
}

/** A band's page (`band`), or a first sync's feed page that leaves out what a band on the device brought (`held`). */
export interface PullOptions {
  band?: BandRange;
  held?: HeldBand;
}

export async function pullBatch(endpoint: SyncEndpoint, collection: string, checkpoint: Checkpoint | undefined, limit: number, options: PullOptions = {}): Promise<PullAnswer> {
  const what = `pull ${collection}`;
  const { band, held } = options;
  const query = new URLSearchParams({
    checkpoint: String(checkpoint?.seq ?? 0),
    limit: String(limit),
    ...band,
    ...(held ? { heldFrom: held.from, heldTo: held.to, heldAt: formatHeldAt(held.at) } : {}),
  });
  const { body } = await exchange(endpoint, what, `/sync/${encodeURIComponent(collection)}/pull?${query}`);
  return checked(PullAnswer, what, body);
}

export async function pushRows(endpoint: SyncEndpoint, collection: string, rows: unknown[]): Promise<DocState[]> {
  return (await pushWithCheckpoint(endpoint, collection, rows, null)).answered;
}

export interface PushAnswer {
  /** Server states to adopt. */
  answered: DocState[];
  /** Where the pull checkpoint may move once they are adopted (see shared/sync/headers.ts), or null. */
  checkpoint: number | null;
}

/**
 * A push that names the device's pull checkpoint, so the server can say the device need not pull
 * its own writes back; and its live stream's id, so they are not sent back on it either.
 */
export async function pushWithCheckpoint(endpoint: SyncEndpoint, collection: string, rows: unknown[], checkpoint: number | null, stream: string | null = null): Promise<PushAnswer> {
  const what = `push ${collection}`;
  const query = checkpoint === null ? '' : `?checkpoint=${checkpoint}${stream ? `&stream=${encodeURIComponent(stream)}` : ''}`;
  const path = `/sync/${encodeURIComponent(collection)}/push${query}`;
  const { body: raw, headers } = await exchange(endpoint, what, path, { method: 'POST', body: JSON.stringify(rows) });
  const body = checked(PushAnswerBody, what, raw);
  const moved = Number(headers.get(PUSH_CHECKPOINT_HEADER));
  const valid = checkpoint !== null && headers.has(PUSH_CHECKPOINT_HEADER) && Number.isSafeInteger(moved) && moved >= checkpoint;
  return { answered: body, checkpoint: valid ? moved : null };
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
