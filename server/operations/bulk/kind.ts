import { createHash } from 'node:crypto';
import { z } from 'zod';
import { errors, idValidator } from '../../../shared/index.js';
import type { ItemError } from '../../storage/bulk-operations.js';
import type { Queryable } from '../../storage/db.js';
import type { SortKey } from '../../storage/lists/keyset.js';
import type { NewMessage } from '../../storage/outgoing-messages.js';
import type { CsvColumn } from '../csv.js';

/**
 * What a bulk-operation kind is, and the pieces kinds are built from. A kind either works through
 * a list of items in chunks (each chunk one transaction with its progress), or streams an export.
 * Selections (the list operations' selector or filter, or explicit ids) are resolved to ids when
 * the operation starts, so later writes do not change what it works on. Each kind is typed by the
 * payload its `prepare` stores and its `run` reads back (kinds/*.ts, one file per resource).
 */
export const MAX_BULK_ITEMS = 10_000;

export type ItemOutcome = { ok: true } | { skipped: true } | { error: Omit<ItemError, 'index' | 'id'> };

export interface ChunkEnv {
  tx: Queryable;
  orgId: string;
  operationId: string;
  /** Puts messages in the outbox, in this chunk's transaction (the worker decides their status). */
  addMessages(messages: Omit<NewMessage, 'status'>[]): Promise<void>;
}

export interface ChunkedKind<P = unknown, I = unknown> {
  type: 'chunked';
  /** The work list stored in the payload (inputs to create, or ids). */
  items(payload: P): I[];
  apply(env: ChunkEnv, payload: P, items: { index: number; item: I }[]): Promise<ItemOutcome[]>;
  /** Kinds whose chunks produce messages to deliver after each commit. */
  sendsMessages?: boolean;
  /**
   * A result file written once every chunk is done (and again by a resumed run that had finished
   * its chunks), from what the chunks recorded: e.g. the month's run lists every customer.
   */
  result?: ChunkResultFile;
}

export interface ChunkResultFile {
  fileName: string;
  columns: readonly CsvColumn<Record<string, unknown>>[];
  rows(q: Queryable, orgId: string, operationId: string): AsyncIterable<Record<string, unknown>>;
}

export interface ExportKind<P = unknown> {
  type: 'export';
  rows(q: Queryable, orgId: string, payload: P): AsyncIterable<Record<string, unknown>>;
  columns: readonly CsvColumn<Record<string, unknown>>[];
  fileName: string;
}

export interface KindDefinition<P = unknown, I = unknown> {
  kind: string;
  /** Validates the request and resolves selections; returns what is stored and the item count. */
  prepare(q: Queryable, orgId: string, raw: unknown): Promise<{ payload: P; total: number }>;
  run: ChunkedKind<P, I> | ExportKind<P>;
}

/**
 * A kind for the registry, where payloads are stored JSON. The payload a kind's `run` reads is
 * the one its own `prepare` returned and the worker stored, so its type holds; this is the one
 * place that says so.
 */
export function defineKind<P, I>(definition: KindDefinition<P, I>): KindDefinition {
  return definition as unknown as KindDefinition;
}

export type IdsPayload = { ids: string[] };
export const idsOf = (payload: IdsPayload) => payload.ids;

export const ids = z.array(idValidator()).min(1).max(MAX_BULK_ITEMS);

export interface IdTable {
  existingIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>>;
}

/** A selection: explicit ids (all must be the organization's) or the list operation's selector. */
export async function resolveSelection(
  q: Queryable,
  orgId: string,
  selection: { ids?: string[] | null; match: () => Promise<string[]> },
  table: IdTable,
  what: string,
): Promise<string[]> {
  if (selection.ids) {
    const found = await table.existingIds(q, orgId, selection.ids);
    const missing = selection.ids.filter((id) => !found.has(id));
    if (missing.length) {
      throw errors.badInput(`ids: ${missing.length} ${what} not found in your organization (${missing.slice(0, 5).join(', ')})`);
    }
    return [...new Set(selection.ids)];
  }
  const matched = await selection.match();
  if (matched.length > MAX_BULK_ITEMS * 10) {
    throw errors.badInput(`the selection matches ${matched.length} ${what}; narrow it`);
  }
  return matched;
}

/** A stable id per (operation, item), so a repeated chunk can never create a second record. */
export function itemRecordId(operationId: string, index: number): string {
  const hex = createHash('sha256').update(`${operationId}:${index}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Changes the same fields of every selected record (CUSTOMERS_UPDATE, INVENTORY_UPDATE, ...). */
export function patchKind<S, P extends object>(
  kind: string,
  selectionSchema: z.ZodType<S>,
  patchSchema: z.ZodType<P>,
  resolve: (q: Queryable, orgId: string, selection: S) => Promise<string[]>,
  table: { patchMany(q: Queryable, orgId: string, ids: readonly string[], patch: P): Promise<string[]> },
): KindDefinition {
  const Request = z.strictObject({ selection: selectionSchema, patch: patchSchema });
  return defineKind<IdsPayload & { patch: P }, string>({
    kind,
    async prepare(q, orgId, raw) {
      const { selection, patch } = Request.parse(raw);
      if (!Object.keys(patch).length) throw errors.badInput('patch: change at least one field');
      const found = await resolve(q, orgId, selection);
      return { payload: { ids: found, patch }, total: found.length };
    },
    run: {
      type: 'chunked',
      items: idsOf,
      async apply(env, payload, items) {
        const changed = new Set(await table.patchMany(env.tx, env.orgId, items.map((i) => i.item), payload.patch));
        return items.map((i) => (changed.has(i.item) ? { ok: true } : { error: { code: 'NOT_FOUND', message: 'deleted since the operation started' } }));
      },
    },
  });
}

const EXPORT_BATCH = 1000;

/** Rows of a keyset-paged read, one page at a time (memory stays flat however many rows). */
async function* keysetRows<T>(read: (after: string | null) => Promise<{ rows: T[]; last: string | null }>) {
  let after: string | null = null;
  for (;;) {
    const { rows, last } = await read(after);
    yield* rows;
    if (!last) return;
    after = last;
  }
}

/** Streams every selected record as CSV (CUSTOMERS_EXPORT, ...). */
export function exportKind<P>(
  kind: string,
  request: z.ZodType<P>,
  page: (q: Queryable, orgId: string, payload: P, after: string | null) => Promise<{ rows: Record<string, unknown>[]; last: string | null }>,
  columns: readonly CsvColumn<Record<string, unknown>>[],
  fileName: string,
): KindDefinition {
  return defineKind<P, never>({
    kind,
    async prepare(_q, _orgId, raw) {
      return { payload: request.parse(raw ?? {}), total: 0 };
    },
    run: { type: 'export', columns, fileName, rows: (q, orgId, payload) => keysetRows((after) => page(q, orgId, payload, after)) },
  });
}

/** Export pages follow ids: stable, indexed, and independent of the list's own order. */
export const BY_ID = (alias: string): SortKey[] => [{ expr: `${alias}.id`, type: 'text', desc: false }];
export const exportWindow = (after: string | null) => ({ size: EXPORT_BATCH, from: after ? [after] : null, backward: false });
export const lastKey = (page: { rows: { keys: string[] }[]; more: boolean }) => (page.more ? page.rows.at(-1)!.keys[0]! : null);
export { EXPORT_BATCH };
