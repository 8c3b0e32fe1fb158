import { quoteResource, type Quote, type QuoteStatus } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';
import { recordTable } from './records.js';

export const quotes = recordTable(quoteResource);

export interface QuoteFilter {
  status?: QuoteStatus | null;
  customerId?: string | null;
}

/** Newest first, as an office reads its quotes; matches the quotes_by_* indexes. */
export const QUOTE_SORT_KEYS: readonly SortKey[] = [
  { expr: 'q.created_at', type: 'timestamptz', desc: true },
  { expr: 'q.id', type: 'text', desc: true },
];

export function quotePage(q: Queryable, orgId: string, filter: QuoteFilter, window: PageWindow): Promise<PageRows<Quote>> {
  const p = new Params([orgId]);
  const where = ['q.org_id = $1', 'not q._deleted'];
  if (filter.status) where.push(`q.status = ${p.add(filter.status)}`);
  if (filter.customerId) where.push(`q.customer_id = ${p.add(filter.customerId)}`);
  return readPage(q, {
    select: quotes.selectList('q'),
    from: 'quotes q',
    where,
    params: p,
    keys: QUOTE_SORT_KEYS,
    window,
    toRecord: quotes.toRecord,
  });
}

/** Locks a quote for a read-modify-write in this transaction. */
export async function lockQuote(tx: Queryable, orgId: string, id: string): Promise<Quote | null> {
  const { rows } = await tx.query(
    `select ${quotes.selectList()} from quotes where org_id = $1 and id = $2 and not _deleted for update`,
    [orgId, id],
  );
  return rows[0] ? quotes.toRecord(rows[0]) : null;
}
