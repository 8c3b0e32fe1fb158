import type { Queryable } from './db.js';
import { jsonbText } from './jsonb-text.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';

/** The conflict log and the quarantine written by sync pushes, and their office-facing lists. */
export interface ConflictEntry {
  id: string;
  collection: string;
  documentId: string;
  field: string;
  keptValue: unknown;
  lostValue: unknown;
  rule: string;
  pushedBy: string | null;
  createdAt: string;
}

export interface QuarantineEntry {
  id: string;
  collection: string;
  documentId: string;
  document: unknown;
  reason: string;
  pushedBy: string | null;
  createdAt: string;
}

export async function logConflicts(q: Queryable, orgId: string, entries: Omit<ConflictEntry, 'createdAt'>[]): Promise<void> {
  if (!entries.length) return;
  await q.query(
    `insert into sync_conflicts (org_id, id, collection, document_id, field, kept_value, lost_value, rule, pushed_by)
     select $1, e.id, e.collection, e.document_id, e.field, e.kept_value, e.lost_value, e.rule, e.pushed_by
       from jsonb_to_recordset($2::jsonb) as e(id text, collection text, document_id text, field text,
            kept_value jsonb, lost_value jsonb, rule text, pushed_by text)`,
    [
      orgId,
      jsonbText(
        entries.map((e) => ({
          id: e.id,
          collection: e.collection,
          document_id: e.documentId,
          field: e.field,
          kept_value: e.keptValue ?? null,
          lost_value: e.lostValue ?? null,
          rule: e.rule,
          pushed_by: e.pushedBy,
        })),
      ),
    ],
  );
}

/**
 * Keeps a document a push could not accept. The same document pushed again (a retry whose answer
 * was lost) is kept once: returns false when an identical entry was already there.
 */
export async function quarantine(q: Queryable, orgId: string, entry: Omit<QuarantineEntry, 'createdAt'>): Promise<boolean> {
  // Kept whatever it holds: what jsonb cannot (U+0000, a lone surrogate) is replaced.
  const document = jsonbText(entry.document);
  const { rowCount } = await q.query(
    `insert into sync_quarantine (org_id, id, collection, document_id, document, reason, pushed_by)
     select $1, $2, $3, $4, $5::jsonb, $6, $7
      where not exists (select 1 from sync_quarantine
                         where org_id = $1 and collection = $3 and document_id = $4 and document = $5::jsonb)`,
    [orgId, entry.id, entry.collection, entry.documentId, document, entry.reason.replace(/\u0000/g, '\ufffd'), entry.pushedBy],
  );
  return rowCount > 0;
}

export interface ConflictFilter {
  collection?: string | null;
  documentId?: string | null;
  field?: string | null;
  since?: string | null;
}

export const SYNC_LOG_SORT: readonly SortKey[] = [
  { expr: 'l.created_at', type: 'timestamptz', desc: true },
  { expr: 'l.id', type: 'text', desc: true },
];

export function conflictPage(q: Queryable, orgId: string, filter: ConflictFilter, window: PageWindow): Promise<PageRows<ConflictEntry>> {
  const p = new Params([orgId]);
  const where = ['l.org_id = $1'];
  if (filter.collection) where.push(`l.collection = ${p.add(filter.collection)}`);
  if (filter.documentId) where.push(`l.document_id = ${p.add(filter.documentId)}`);
  if (filter.field) where.push(`l.field = ${p.add(filter.field)}`);
  if (filter.since) where.push(`l.created_at >= ${p.add(filter.since)}::timestamptz`);
  return readPage(q, {
    select: `l.id, l.collection, l.document_id as "documentId", l.field, l.kept_value as "keptValue",
             l.lost_value as "lostValue", l.rule, l.pushed_by as "pushedBy", l.created_at as "createdAt"`,
    from: 'sync_conflicts l',
    where,
    params: p,
    keys: SYNC_LOG_SORT,
    window,
    toRecord: (row) => row as unknown as ConflictEntry,
  });
}

export function quarantinePage(q: Queryable, orgId: string, collection: string | null, window: PageWindow): Promise<PageRows<QuarantineEntry>> {
  const p = new Params([orgId]);
  const where = ['l.org_id = $1'];
  if (collection) where.push(`l.collection = ${p.add(collection)}`);
  return readPage(q, {
    select: `l.id, l.collection, l.document_id as "documentId", l.document, l.reason, l.pushed_by as "pushedBy",
             l.created_at as "createdAt"`,
    from: 'sync_quarantine l',
    where,
    params: p,
    keys: SYNC_LOG_SORT,
    window,
    toRecord: (row) => row as unknown as QuarantineEntry,
  });
}
