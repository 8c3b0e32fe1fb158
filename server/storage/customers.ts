import { customerQuotedPriceResource, customerResource, type Customer, type CustomerQuotedPrice } from '../../shared/index.js';
import type { Queryable } from './db.js';
import {
  booleanConditionSql,
  idConditionSql,
  listConditionSql,
  rangeConditionSql,
  searchWords,
  searchWordsSql,
  stringConditionSql,
  type BooleanCondition,
  type IdCondition,
  type ListCondition,
  type RangeCondition,
  type StringCondition,
} from './lists/conditions.js';
import { countRows, readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';
import { recordTable } from './records.js';

/** Customer lists, search and quoted prices. Sort keys match migration 0002's indexes. */
export const customers = recordTable(customerResource);
export const quotedPrices = recordTable(customerQuotedPriceResource);

export interface CustomerFilter {
  id?: IdCondition | null;
  status?: IdCondition | null;
  isCommercial?: BooleanCondition | null;
  readyForInvoice?: BooleanCondition | null;
  zone?: StringCondition | null;
  city?: StringCondition | null;
  state?: StringCondition | null;
  zipCode?: StringCondition | null;
  /** A connector's own ids of the customer (linking records), found by the partial indexes of migration 0029. */
  accountingId?: StringCondition | null;
  paymentProcessorId?: StringCondition | null;
  tags?: ListCondition | null;
  customerSinceDate?: RangeCondition | null;
  deleted?: BooleanCondition | null;
}

export interface CustomerSelector {
  search?: string | null;
  filters?: CustomerFilter | null;
}

export const CUSTOMER_SORT_FIELDS = ['NAME', 'CITY', 'CREATED_AT', 'UPDATED_AT', 'CUSTOMER_SINCE_DATE'] as const;
export type CustomerSortField = (typeof CUSTOMER_SORT_FIELDS)[number];
export interface SortTerm<F> {
  field: F;
  direction: 'ASC' | 'DESC';
}

/**
 * Ids of the organization's customers whose search text holds every word (customer_search, kept
 * by a trigger and trigram-indexed; see migration 0002).
 */
export function customerSearchIds(search: string, p: Params): string {
  return `(select cs.id from customer_search cs where cs.org_id = $1 and ${searchWordsSql('cs.doc', search, p).join(' and ')})`;
}

const SORT_EXPRESSIONS: Record<CustomerSortField, Omit<SortKey, 'desc'>[]> = {
  NAME: [
    { expr: 'lower(c.last_name)', type: 'text' },
    { expr: "lower(coalesce(c.first_name, ''))", type: 'text' },
  ],
  CITY: [{ expr: "lower(coalesce(c.city, ''))", type: 'text' }],
  CREATED_AT: [{ expr: 'c.created_at', type: 'timestamptz' }],
  UPDATED_AT: [{ expr: 'c.updated_at', type: 'timestamptz' }],
  CUSTOMER_SINCE_DATE: [{ expr: "coalesce(c.customer_since_date, '-infinity'::date)", type: 'date' }],
};

/** Sort keys for the requested order, ending with the id so the order is total. */
export function customerSortKeys(sort: readonly SortTerm<CustomerSortField>[]): SortKey[] {
  const terms = sort.length ? sort : [{ field: 'NAME', direction: 'ASC' } as const];
  const keys = terms.flatMap(({ field, direction }) =>
    SORT_EXPRESSIONS[field].map((k) => ({ ...k, desc: direction === 'DESC' })),
  );
  const unique = keys.filter((k, i) => keys.findIndex((o) => o.expr === k.expr) === i);
  return [...unique, { expr: 'c.id', type: 'text', desc: unique[0]!.desc }];
}

function customerConditions(orgId: string, selector: CustomerSelector): { where: string[]; params: Params } {
  const p = new Params([orgId]);
  const f = selector.filters ?? {};
  const deleted = f.deleted?.eq ?? false;
  const where = [
    'c.org_id = $1',
    deleted ? 'c._deleted' : 'not c._deleted',
    ...(f.id ? idConditionSql('c.id', f.id, p) : []),
    ...(f.status ? idConditionSql('c.status', f.status, p) : []),
    ...(f.isCommercial ? booleanConditionSql('c.is_commercial', f.isCommercial, p) : []),
    ...(f.readyForInvoice ? booleanConditionSql('c.ready_for_invoice', f.readyForInvoice, p) : []),
    ...(f.zone ? stringConditionSql('c.zone', f.zone, p) : []),
    ...(f.city ? stringConditionSql('c.city', f.city, p) : []),
    ...(f.state ? stringConditionSql('c.state', f.state, p) : []),
    ...(f.zipCode ? stringConditionSql('c.zip_code', f.zipCode, p) : []),
    ...(f.accountingId ? stringConditionSql('c.accounting_id', f.accountingId, p) : []),
    ...(f.paymentProcessorId ? stringConditionSql('c.payment_processor_id', f.paymentProcessorId, p) : []),
    ...(f.tags ? listConditionSql('c.tags', f.tags, p) : []),
    ...(f.customerSinceDate ? rangeConditionSql('c.customer_since_date', f.customerSinceDate, p, 'date') : []),
    ...(selector.search && searchWords(selector.search).length ? [`c.id in ${customerSearchIds(selector.search, p)}`] : []),
  ];
  return { where, params: p };
}

export interface CustomerPage extends PageRows<Customer> {
  /** All matches of a search (before paging), counted in the same scan; null when not counted. */
  total: number | null;
}

export async function customerPage(
  q: Queryable,
  orgId: string,
  selector: CustomerSelector,
  keys: readonly SortKey[],
  window: PageWindow,
): Promise<CustomerPage> {
  const searched = Boolean(selector.search && searchWords(selector.search).length > 0);
  if (searched && isPlainSearch(selector, keys)) return searchPageByName(q, orgId, selector.search!, keys, window);
  const { where, params } = customerConditions(orgId, selector);
  // With a search, the matches are gathered from the trigram index first (and counted on the
  // way), then ordered. Left to itself the planner may walk the name index instead, betting that
  // matches are spread evenly; but "smi" matches cluster under S, and that walk reads most of the
  // table.
  let total: number | null = null;
  const page = await readPage(q, {
    select: searched ? `${customers.selectList('c')}, c._total` : customers.selectList('c'),
    from: searched
      ? `(select *, count(*) over () as _total from customers c where ${where.join(' and ')} offset 0) c`
      : 'customers c',
    where: searched ? [] : where,
    params,
    keys,
    window,
    toRecord: (row) => {
      if (searched) total = Number(row._total);
      return customers.toRecord(row);
    },
  });
  return { ...page, total };
}

/** A search alone (no other filter, live customers) in the default order, either direction. */
function isPlainSearch(selector: CustomerSelector, keys: readonly SortKey[]): boolean {
  const filters = Object.entries(selector.filters ?? {}).filter(([, v]) => v != null);
  const onlyLive = filters.every(([k, v]) => k === 'deleted' && !(v as BooleanCondition).eq);
  const byName = keys.length === 3 && keys[0]!.expr === 'lower(c.last_name)' && keys[2]!.expr === 'c.id';
  return onlyLive && byName && keys.every((k) => k.desc === keys[0]!.desc);
}

/**
 * The search page cut from customer_search alone (it carries the name keys and liveness), so
 * only the page's rows are read from customers: 1,700 matches of 100,000 cost one index scan of
 * the narrow table, not 1,700 row fetches.
 */
async function searchPageByName(q: Queryable, orgId: string, search: string, keys: readonly SortKey[], window: PageWindow): Promise<CustomerPage> {
  const p = new Params([orgId]);
  const words = searchWordsSql('cs.doc', search, p).join(' and ');
  const descending = keys[0]!.desc !== window.backward;
  const direction = descending ? 'desc' : 'asc';
  const seek = window.from
    ? `where (m.last_key, m.first_key, m.id) ${descending ? '<' : '>'} (${p.add(window.from[0])}::text, ${p.add(window.from[1])}::text, ${p.add(window.from[2])}::text)`
    : '';
  const { rows } = await q.query<Record<string, unknown>>(
    `with matched as materialized (
       select cs.id, cs.last_key, cs.first_key
         from customer_search cs where cs.org_id = $1 and cs.live and ${words}),
     page as materialized (
       select m.* from matched m ${seek}
        order by m.last_key ${direction}, m.first_key ${direction}, m.id ${direction} limit ${p.add(window.size + 1)})
     select ${customers.selectList('c')}, page.last_key as "_k0", page.first_key as "_k1", page.id as "_k2",
            (select count(*) from matched) as "_total"
       from page join customers c on c.org_id = $1 and c.id = page.id
      order by page.last_key ${direction}, page.first_key ${direction}, page.id ${direction}`,
    p.values,
  );
  const more = rows.length > window.size;
  const pageRows = rows.slice(0, window.size).map((row) => ({
    record: customers.toRecord(row),
    keys: [row._k0 as string, row._k1 as string, row._k2 as string],
  }));
  if (window.backward) pageRows.reverse();
  const total = rows.length ? Number(rows[0]!._total) : null;
  return { rows: pageRows, more, total };
}

export async function countCustomers(q: Queryable, orgId: string, selector: CustomerSelector): Promise<number> {
  if (onlyDeletedFilter(selector)) {
    // The whole list (live or deleted): the count the table's triggers keep (migration 0010).
    const column = selector.filters?.deleted?.eq ? 'deleted' : 'live';
    const { rows } = await q.query<{ n: number }>(`select ${column} as n from customer_counts where org_id = $1`, [orgId]);
    return rows[0]?.n ?? 0;
  }
  const { where, params } = customerConditions(orgId, selector);
  return countRows(q, 'customers c', where, params);
}

/** No search and no filter but `deleted`: the selector names all live (or all deleted) customers. */
function onlyDeletedFilter(selector: CustomerSelector): boolean {
  if (selector.search && searchWords(selector.search).length) return false;
  const used = Object.entries(selector.filters ?? {}).filter(([, value]) => value !== null && value !== undefined);
  return used.every(([name]) => name === 'deleted');
}

/** Live customers of the organization among `ids` (for loading relations in batches). */
export async function customersByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Customer[]> {
  const { rows } = await q.query(
    `select ${customers.selectList()} from customers where org_id = $1 and id = any($2::text[])`,
    [orgId, ids],
  );
  return rows.map(customers.toRecord);
}

export type QuotedPriceWithType = CustomerQuotedPrice & { serviceTypeDisplay: string | null };

/** Quoted prices of customers in submitted order, with the service type's name. */
export async function quotedPricesOf(
  q: Queryable,
  orgId: string,
  customerIds: readonly string[],
): Promise<QuotedPriceWithType[]> {
  const { rows } = await q.query<Record<string, unknown>>(
    `select ${quotedPrices.selectList('p')}, t.display as "serviceTypeDisplay"
       from customer_quoted_prices p
       left join service_types t on t.org_id = p.org_id and t.id = p.type_id and not t._deleted
      where p.org_id = $1 and p.customer_id = any($2::text[])
      order by p.position, p.id`,
    [orgId, customerIds],
  );
  return rows.map((row) => ({ ...quotedPrices.toRecord(row), serviceTypeDisplay: (row.serviceTypeDisplay as string) ?? null }));
}

export async function deleteQuotedPrices(q: Queryable, orgId: string, customerId: string): Promise<void> {
  await q.query('delete from customer_quoted_prices where org_id = $1 and customer_id = $2', [orgId, customerId]);
}

/** Ids among `ids` that are live service types of the organization. */
export async function existingServiceTypeIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  const { rows } = await q.query<{ id: string }>(
    'select id from service_types where org_id = $1 and id = any($2::text[]) and not _deleted',
    [orgId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Ids of every customer matching a selector, in id order (bulk operations snapshot these). */
export async function customerIdsMatching(q: Queryable, orgId: string, selector: CustomerSelector): Promise<string[]> {
  const { where, params } = customerConditions(orgId, selector);
  const { rows } = await q.query<{ id: string }>(`select c.id from customers c where ${where.join(' and ')} order by c.id`, params.values);
  return rows.map((r) => r.id);
}
