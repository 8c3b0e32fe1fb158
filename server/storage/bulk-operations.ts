import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';

/** The bulk-operation job table: creation, claiming by workers, progress, and reads. */
export const BULK_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'PARTIAL'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

export interface ItemError {
  index?: number;
  id?: string;
  code: string;
  message: string;
}

export interface BulkOperationRow {
  orgId: string;
  id: string;
  kind: string;
  status: BulkStatus;
  /** What the kind's prepare stored (JSON); only that kind reads it. */
  payload: unknown;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  skipped: number;
  errors: ItemError[];
  resultKey: string | null;
  idempotencyKey: string | null;
  createdBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  claimedBy: string | null;
  cancelRequested: boolean;
}

const COLUMNS = `org_id as "orgId", id, kind, status, payload, total, processed, succeeded, failed, skipped, errors,
  result_key as "resultKey", idempotency_key as "idempotencyKey", created_by as "createdBy", created_at as "createdAt",
  started_at as "startedAt", finished_at as "finishedAt", claimed_by as "claimedBy", cancel_requested as "cancelRequested"`;

export const MAX_RECORDED_ERRORS = 100;

export async function insertOperation(
  q: Queryable,
  op: Pick<BulkOperationRow, 'orgId' | 'id' | 'kind' | 'payload' | 'total' | 'idempotencyKey' | 'createdBy'>,
): Promise<BulkOperationRow | null> {
  const { rows } = await q.query<BulkOperationRow>(
    `insert into bulk_operations (org_id, id, kind, status, payload, total, idempotency_key, created_by)
     values ($1, $2, $3, 'QUEUED', $4, $5, $6, $7)
     on conflict (org_id, idempotency_key) where idempotency_key is not null do nothing
     returning ${COLUMNS}`,
    [op.orgId, op.id, op.kind, JSON.stringify(op.payload), op.total, op.idempotencyKey, op.createdBy],
  );
  return rows[0] ?? null;
}

export async function operationByIdempotencyKey(q: Queryable, orgId: string, key: string): Promise<BulkOperationRow | null> {
  const { rows } = await q.query<BulkOperationRow>(`select ${COLUMNS} from bulk_operations where org_id = $1 and idempotency_key = $2`, [orgId, key]);
  return rows[0] ?? null;
}

export async function findOperation(q: Queryable, orgId: string, id: string): Promise<BulkOperationRow | null> {
  const { rows } = await q.query<BulkOperationRow>(`select ${COLUMNS} from bulk_operations where org_id = $1 and id = $2`, [orgId, id]);
  return rows[0] ?? null;
}

export async function lockOperation(tx: Queryable, orgId: string, id: string): Promise<BulkOperationRow | null> {
  const { rows } = await tx.query<BulkOperationRow>(`select ${COLUMNS} from bulk_operations where org_id = $1 and id = $2 for update`, [orgId, id]);
  return rows[0] ?? null;
}

/**
 * Claims a running job of this process's earlier life (its worker id starts with `earlierLife`,
 * and is not this worker's), else the oldest queued job, or a running one whose worker has gone
 * silent for `staleMs`. SKIP LOCKED lets several workers (in several processes) claim side by side,
 * each a different job.
 */
export async function claimNextOperation(q: Queryable, workerId: string, staleMs: number, earlierLife?: string): Promise<BulkOperationRow | null> {
  const { rows } = await q.query<BulkOperationRow>(
    `update bulk_operations b
        set status = 'RUNNING', claimed_by = $1, heartbeat_at = clock_timestamp(),
            started_at = coalesce(b.started_at, clock_timestamp())
      where (b.org_id, b.id) = (
        select org_id, id from bulk_operations
         where status = 'QUEUED'
            or (status = 'RUNNING' and heartbeat_at < clock_timestamp() - make_interval(secs => $2::float8 / 1000))
            or (status = 'RUNNING' and starts_with(claimed_by, $3) and claimed_by <> $1)
         order by status = 'RUNNING' and starts_with(claimed_by, $3) and claimed_by <> $1 desc, created_at
         limit 1
         for update skip locked)
      returning ${COLUMNS}`,
    [workerId, staleMs, earlierLife ?? null],
  );
  return rows[0] ?? null;
}

export interface Progress {
  processed: number;
  succeeded: number;
  failed: number;
  skipped: number;
  errors: ItemError[];
}

/** Adds a chunk's counts (in the chunk's transaction) and shows the worker is alive. */
export async function addProgress(tx: Queryable, orgId: string, id: string, delta: Progress): Promise<void> {
  await tx.query(
    `update bulk_operations
        set processed = processed + $3, succeeded = succeeded + $4, failed = failed + $5, skipped = skipped + $6,
            errors = case when jsonb_array_length(errors) >= ${MAX_RECORDED_ERRORS} then errors
                          else (select coalesce(jsonb_agg(e), '[]') from (
                                  select e from jsonb_array_elements(errors || $7::jsonb) e limit ${MAX_RECORDED_ERRORS}) s) end,
            heartbeat_at = clock_timestamp()
      where org_id = $1 and id = $2`,
    [orgId, id, delta.processed, delta.succeeded, delta.failed, delta.skipped, JSON.stringify(delta.errors)],
  );
}

export async function finishOperation(
  q: Queryable,
  orgId: string,
  id: string,
  status: BulkStatus,
  extra: { resultKey?: string | null; error?: ItemError } = {},
): Promise<void> {
  await q.query(
    `update bulk_operations set status = $3, finished_at = clock_timestamp(), result_key = coalesce($4, result_key),
            errors = case when $5::jsonb is null then errors else errors || $5::jsonb end, claimed_by = null
      where org_id = $1 and id = $2`,
    [orgId, id, status, extra.resultKey ?? null, extra.error ? JSON.stringify([extra.error]) : null],
  );
}

export async function requestCancel(q: Queryable, orgId: string, id: string): Promise<BulkOperationRow | null> {
  const { rows } = await q.query<BulkOperationRow>(
    `update bulk_operations
        set cancel_requested = true,
            status = case when status = 'QUEUED' then 'CANCELLED' else status end,
            finished_at = case when status = 'QUEUED' then clock_timestamp() else finished_at end
      where org_id = $1 and id = $2
      returning ${COLUMNS}`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

const SORT: readonly SortKey[] = [
  { expr: 'b.created_at', type: 'timestamptz', desc: true },
  { expr: 'b.id', type: 'text', desc: true },
];
export const BULK_LIST_KEYS = SORT;

export function operationPage(
  q: Queryable,
  orgId: string,
  filter: { status?: string | null; kind?: string | null },
  window: PageWindow,
): Promise<PageRows<BulkOperationRow>> {
  const p = new Params([orgId]);
  const where = ['b.org_id = $1'];
  if (filter.status) where.push(`b.status = ${p.add(filter.status)}`);
  if (filter.kind) where.push(`b.kind = ${p.add(filter.kind)}`);
  return readPage(q, {
    select: COLUMNS,
    from: 'bulk_operations b',
    where,
    params: p,
    keys: SORT,
    window,
    toRecord: (row) => row as unknown as BulkOperationRow,
  });
}

/** An export learns its total only once it has read every row. */
export async function setOperationTotal(q: Queryable, orgId: string, id: string, total: number): Promise<void> {
  await q.query('update bulk_operations set total = $3 where org_id = $1 and id = $2', [orgId, id, total]);
}

export interface BulkQueueStats {
  /** Operations per status (the table holds one row per started operation: small). */
  byStatus: Record<string, number>;
  /** Seconds the oldest QUEUED operation has waited; 0 when none waits. */
  oldestQueuedSeconds: number;
}

/** For /metrics, across organizations. */
export async function bulkQueueStats(q: Queryable): Promise<BulkQueueStats> {
  const { rows } = await q.query<{ status: string; count: number; oldest: number | null }>(
    `select status, count(*)::int as count,
            extract(epoch from clock_timestamp() - min(created_at) filter (where status = 'QUEUED'))::float8 as oldest
       from bulk_operations group by status`,
  );
  const byStatus = Object.fromEntries(BULK_STATUSES.map((s) => [s, 0]));
  let oldestQueuedSeconds = 0;
  for (const row of rows) {
    byStatus[row.status] = row.count;
    if (row.oldest !== null) oldestQueuedSeconds = row.oldest;
  }
  return { byStatus, oldestQueuedSeconds };
}
