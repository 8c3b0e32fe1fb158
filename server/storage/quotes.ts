import { quoteResource, type Quote, type QuoteStatus } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';
import { moneyOut } from './money-sql.js';
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

export interface QuoteExportRow {
  number: string;
  title: string;
  customerName: string;
  status: string;
  subtotal: number;
  tax: number;
  total: number;
  validUntil: string | null;
  acceptedAt: string | null;
  createdAt: string;
  /** Seek key of the row (created_at as text keeps microseconds). */
  seek: [string, string];
}

/** One batch of quotes created on or after `from`, oldest first, after the seek key. */
export async function quoteExportBatch(
  q: Queryable,
  orgId: string,
  from: string | null,
  after: [string, string] | null,
  limit: number,
): Promise<QuoteExportRow[]> {
  const p = new Params([orgId]);
  const where = ['q.org_id = $1', 'not q._deleted'];
  if (from) where.push(`q.created_at >= ${p.add(from)}::date`);
  if (after) where.push(`(q.created_at, q.id) > (${p.add(after[0])}::timestamptz, ${p.add(after[1])}::text)`);
  const { rows } = await q.query<QuoteExportRow & { seekAt: string; id: string }>(
    `select q.number, q.title, trim(concat_ws(' ', c.first_name, c.last_name)) as "customerName", q.status,
            ${moneyOut('q.subtotal', '$1')} as subtotal, ${moneyOut('q.tax', '$1')} as tax, ${moneyOut('q.total', '$1')} as total, q.valid_until as "validUntil", q.accepted_at as "acceptedAt",
            q.created_at as "createdAt", q.created_at::text as "seekAt", q.id
       from quotes q left join customers c on c.org_id = q.org_id and c.id = q.customer_id
      where ${where.join(' and ')}
      order by q.created_at, q.id
      limit ${p.add(limit)}`,
    p.values,
  );
  return rows.map(({ seekAt, id, ...row }) => ({ ...row, seek: [seekAt, id] }));
}
