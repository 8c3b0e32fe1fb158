import { z } from 'zod';
import { describeIssues, errors } from '../../../shared/index.js';
import {
  BULK_LIST_KEYS,
  BULK_STATUSES,
  findOperation,
  insertOperation,
  operationByIdempotencyKey,
  operationPage,
  requestCancel,
  type BulkOperationRow,
} from '../../storage/bulk-operations.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from '../pagination.js';
import { BULK_KIND_NAMES, kindNamed } from './kinds.js';

/**
 * Bulk operations as callers see them: start (validated in full before anything is stored),
 * progress, lists, cancel. The work itself is done by server/jobs/worker.ts.
 */
const VIEW_FIELDS = [
  'id', 'kind', 'status', 'total', 'processed', 'succeeded', 'failed', 'skipped', 'errors',
  // Object key of the result file (exports); transports turn it into a signed resultUrl.
  'resultKey',
  'createdAt', 'startedAt', 'finishedAt',
] as const;

/** What callers see of a job row: no payload, worker claims or idempotency key. */
export type BulkOperationView = Pick<BulkOperationRow, (typeof VIEW_FIELDS)[number]>;

export function view(row: BulkOperationRow): BulkOperationView {
  return Object.fromEntries(VIEW_FIELDS.map((field) => [field, row[field]])) as BulkOperationView;
}

const StartInput = z.looseObject({ kind: z.string() });
const IdempotencyKey = z.string().min(1).max(200).nullish();

/**
 * Starts an operation: `{kind, ...payload}`. With an idempotency key, a retried request answers
 * the operation the first one started instead of starting another.
 */
export async function startBulkOperation(ctx: OperationContext, raw: unknown, rawKey?: unknown): Promise<{ operation: BulkOperationView; created: boolean }> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'start bulk operations');
  const { kind: name, ...rest } = parseInput(StartInput, raw);
  const key = parseInput(IdempotencyKey, rawKey ?? null) ?? null;
  const kind = kindNamed(name);
  if (!kind) throw errors.badInput(`kind: unknown bulk operation ${name}; one of ${BULK_KIND_NAMES.join(', ')}`, { fields: ['kind'] });
  const orgId = ctx.viewer.orgId;
  if (key) {
    const existing = await operationByIdempotencyKey(ctx.db, orgId, key);
    if (existing) return { operation: view(existing), created: false };
  }
  const prepared = await prepareOrExplain(() => kind.prepare(ctx.db, orgId, rest));
  const inserted = await insertOperation(ctx.db, {
    orgId,
    id: newId(),
    kind: kind.kind,
    payload: prepared.payload,
    total: prepared.total,
    idempotencyKey: key,
    createdBy: ctx.viewer.userId,
  });
  if (inserted) return { operation: view(inserted), created: true };
  // Two requests with one key raced; the other one's insert won.
  return { operation: view((await operationByIdempotencyKey(ctx.db, orgId, key!))!), created: false };
}

async function prepareOrExplain<T>(prepare: () => Promise<T>): Promise<T> {
  try {
    return await prepare();
  } catch (error) {
    if (error instanceof z.ZodError) {
      throw errors.badInput(`Invalid bulk operation: ${describeIssues(error.issues, { whole: '(request)' })}`);
    }
    throw error;
  }
}

export async function getBulkOperation(ctx: OperationContext, id: string): Promise<BulkOperationView> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read bulk operations');
  const row = await findOperation(ctx.db, ctx.viewer.orgId, id);
  if (!row) throw errors.notFound('Bulk operation', id);
  return view(row);
}

const ListFilter = z.strictObject({ status: z.enum(BULK_STATUSES).nullish(), kind: z.string().max(50).nullish() });

export async function listBulkOperations(ctx: OperationContext, args: PageArgs & { status?: unknown; kind?: unknown }): Promise<Connection<BulkOperationView>> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read bulk operations');
  const filter = parseInput(ListFilter, { status: args.status ?? null, kind: args.kind ?? null });
  const tag = listTag(ctx.viewer.orgId, 'bulk-operations', '');
  const window = pageWindow({ first: args.first, after: args.after }, tag, BULK_LIST_KEYS.length);
  const page = await operationPage(ctx.db, ctx.viewer.orgId, filter, window);
  return toConnection({ ...page, rows: page.rows.map((r) => ({ ...r, record: view(r.record) })) }, window, tag);
}

/** Asks a running operation to stop after its current chunk; a queued one is cancelled at once. */
export async function cancelBulkOperation(ctx: OperationContext, id: string): Promise<BulkOperationView> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'cancel bulk operations');
  const row = await requestCancel(ctx.db, ctx.viewer.orgId, id);
  if (!row) throw errors.notFound('Bulk operation', id);
  return view(row);
}
