import { serviceResource, serviceTypeResource, type Service, type ServiceType } from '../../shared/index.js';
import { customerSearchIds } from './customers.js';
import type { Queryable } from './db.js';
import {
  booleanConditionSql,
  idConditionSql,
  rangeConditionSql,
  searchWords,
  searchWordsSql,
  stringConditionSql,
  type BooleanCondition,
  type IdCondition,
  type RangeCondition,
  type StringCondition,
} from './lists/conditions.js';
import { nextRowsInOrder, readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params, containsPattern } from './lists/params.js';
import { recordTable } from './records.js';

/** Visit lists and service types. Sort keys match migration 0002's indexes. */
export const services = recordTable(serviceResource);
export const serviceTypes = recordTable(serviceTypeResource);

/** ServiceFilter fields filtered with a StringFilter, and their columns. */
export const SERVICE_STRING_FILTERS = {
  reference: 's.reference',
  customerId: 's.customer_id',
  newTechnicianId: 's.new_technician_id',
  newSecondaryTechnicianId: 's.new_secondary_technician_id',
  appointmentId: 's.appointment_id',
  appointmentIdentifierCuid: 's.appointment_identifier_cuid',
  appointmentRecurringRuleId: 's.appointment_recurring_rule_id',
  billingStatus: 's.billing_status',
  flag: 's.flag',
  typeId: 's.type_id',
  vacuum: 's.vacuum',
  waterLevel: 's.water_level',
  waterCondition: 's.water_condition',
  waterColor: 's.water_color',
} as const;

export const SERVICE_DATE_FILTERS = {
  startTime: 's.start_time',
  endTime: 's.end_time',
  returnAppointmentDate: 's.return_appointment_date',
  dateEmailed: 's.date_emailed',
  dateTexted: 's.date_texted',
} as const;

/** Whether the visit report went out: by email, by text, or not at all. */
export const NOTIFICATION_STATUSES = ['EMAILED', 'TEXTED', 'NOT_NOTIFIED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export type ServiceFilter = {
  [K in keyof typeof SERVICE_STRING_FILTERS]?: StringCondition | null;
} & {
  [K in keyof typeof SERVICE_DATE_FILTERS]?: RangeCondition | null;
} & {
  id?: IdCondition | null;
  /** Tags of the visit's customer: eq = has the tag, in = has any of them. */
  customerTags?: IdCondition | null;
  customerReadyForInvoice?: BooleanCondition | null;
  notification?: NotificationStatus[] | null;
  /** Visits where any of these users is the primary or secondary technician. */
  technicians?: string[] | null;
};

export interface ServiceSelector {
  filters?: ServiceFilter | null;
  search?: string | null;
  /** Visits added to the result whatever the filters say. */
  include?: string[] | null;
  /** Visits removed from the result whatever else matches. */
  exclude?: string[] | null;
}

export const SERVICE_SORT_FIELDS = ['START_TIME', 'CREATED_AT', 'UPDATED_AT'] as const;
export type ServiceSortField = (typeof SERVICE_SORT_FIELDS)[number];

/** Visits without a start time sort first (ascending); matches the services_by_* indexes. */
const START_KEY = "coalesce(s.start_time, '-infinity'::timestamptz)";

const SORT_EXPRESSIONS: Record<ServiceSortField, Omit<SortKey, 'desc'>> = {
  START_TIME: { expr: START_KEY, type: 'timestamptz' },
  CREATED_AT: { expr: 's.created_at', type: 'timestamptz' },
  UPDATED_AT: { expr: 's.updated_at', type: 'timestamptz' },
};

export function serviceSortKeys(field: ServiceSortField, direction: 'ASC' | 'DESC'): SortKey[] {
  const desc = direction === 'DESC';
  return [{ ...SORT_EXPRESSIONS[field], desc }, { expr: 's.id', type: 'text', desc }];
}

const NOTIFICATION_SQL: Record<NotificationStatus, string> = {
  EMAILED: 's.date_emailed is not null',
  TEXTED: 's.date_texted is not null',
  NOT_NOTIFIED: 's.date_emailed is null and s.date_texted is null',
};

function filterConditions(f: ServiceFilter, p: Params): string[] {
  const out: string[] = [];
  if (f.id) out.push(...idConditionSql('s.id', f.id, p));
  for (const [field, column] of Object.entries(SERVICE_STRING_FILTERS)) {
    const c = f[field as keyof typeof SERVICE_STRING_FILTERS];
    if (c) out.push(...stringConditionSql(column, c, p));
  }
  for (const [field, column] of Object.entries(SERVICE_DATE_FILTERS)) {
    const c = f[field as keyof typeof SERVICE_DATE_FILTERS];
    if (!c) continue;
    if (field === 'startTime') {
      // Compared through the sort key's expression so the range bounds the index scans that
      // also give the order; a visit without a start time never falls in a range.
      const bounds = rangeConditionSql(START_KEY, c, p, 'timestamptz');
      if (bounds.length) out.push('s.start_time is not null', ...bounds);
    } else {
      out.push(...rangeConditionSql(column, c, p, 'timestamptz'));
    }
  }
  const customer: string[] = [];
  if (f.customerTags?.eq != null) customer.push(`c.tags @> array[${p.add(f.customerTags.eq)}]::text[]`);
  if (f.customerTags?.in != null) customer.push(`c.tags && ${p.add(f.customerTags.in)}::text[]`);
  if (f.customerTags?.notIn != null) customer.push(`not coalesce(c.tags && ${p.add(f.customerTags.notIn)}::text[], false)`);
  if (f.customerReadyForInvoice) customer.push(...booleanConditionSql('c.ready_for_invoice', f.customerReadyForInvoice, p));
  if (customer.length) out.push(`exists (select 1 from customers c where c.org_id = s.org_id and c.id = s.customer_id and ${customer.join(' and ')})`);
  if (f.notification?.length) out.push(`((${f.notification.map((n) => NOTIFICATION_SQL[n]).join(') or (')}))`);
  if (f.technicians?.length) {
    const ids = p.add(f.technicians);
    out.push(`(s.new_technician_id = any(${ids}::text[]) or s.new_secondary_technician_id = any(${ids}::text[]))`);
  }
  return out;
}

/**
 * A visit matches when all words are in its own text, or all are in its customer's. Written as
 * a union of ids so each half is answered by its own trigram index.
 */
function searchCondition(search: string, p: Params, perRow: boolean): string[] {
  if (searchWords(search).length === 0) return [];
  if (perRow) {
    // Checked row by row along a walk of the sort index (see servicePage): a scalar subquery, one
    // primary-key lookup per row. Written as EXISTS, PostgreSQL would turn it into a hashed set of
    // every match, which is the work the walk is there to avoid.
    const patterns = searchWords(search).map((word) => p.add(containsPattern(word)));
    return [
      `((select ss.doc from service_search ss where ss.org_id = s.org_id and ss.id = s.id) like all (array[${patterns.join(', ')}]::text[])` +
        ` or s.customer_id in ${customerSearchIds(search, p)})`,
    ];
  }
  const own = searchWordsSql('ss.doc', search, p).join(' and ');
  return [
    `s.id in (select ss.id from service_search ss where ss.org_id = $1 and ${own}` +
      ` union all select x.id from services x where x.org_id = $1 and x.customer_id in ${customerSearchIds(search, p)})`,
  ];
}

function serviceConditions(orgId: string, selector: ServiceSelector, searchPerRow = false): { where: string[]; params: Params } {
  const p = new Params([orgId]);
  const matched = [
    ...filterConditions(selector.filters ?? {}, p),
    ...(selector.search ? searchCondition(selector.search, p, searchPerRow) : []),
  ];
  let where = matched.length ? matched.join(' and ') : 'true';
  if (selector.include?.length) where = `((${where}) or s.id = any(${p.add(selector.include)}::text[]))`;
  const out = ['s.org_id = $1', 'not s._deleted', where];
  if (selector.exclude?.length) out.push(`not (s.id = any(${p.add(selector.exclude)}::text[]))`);
  return { where: out, params: p };
}

/**
 * Rows a searched page looks through in order before gathering every match: a word in more than
 * one visit of 40 fills a page of 50 from them (one short index walk, 2,000 search-row lookups);
 * a rarer word is answered from the trigram index, where its few matches are cheap to sort.
 */
const SEARCH_WALK_ROWS = 2000;

export async function servicePage(
  q: Queryable,
  orgId: string,
  selector: ServiceSelector,
  keys: readonly SortKey[],
  window: PageWindow,
): Promise<PageRows<Service>> {
  const page = (walk: boolean) => {
    const { where, params } = serviceConditions(orgId, selector, walk);
    const from = walk ? nextRowsInOrder('services s', ['s.org_id = $1', 'not s._deleted'], keys, window, params, SEARCH_WALK_ROWS) : 'services s';
    return readPage(q, { select: services.selectList('s'), from, where, params, keys, window, toRecord: services.toRecord });
  };
  if (selector.search && searchWords(selector.search).length) {
    // A common word: its matches are dense along the sort order, and the page is among the next rows.
    const near = await page(true);
    if (near.more) return near;
  }
  return page(false);
}

/** Locks a visit for a read-modify-write in this transaction. */
export async function lockService(tx: Queryable, orgId: string, id: string): Promise<Service | null> {
  const { rows } = await tx.query(
    `select ${services.selectList()} from services where org_id = $1 and id = $2 and not _deleted for update`,
    [orgId, id],
  );
  return rows[0] ? services.toRecord(rows[0]) : null;
}

export async function serviceTypesByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<ServiceType[]> {
  const { rows } = await q.query(
    `select ${serviceTypes.selectList()} from service_types where org_id = $1 and id = any($2::text[])`,
    [orgId, ids],
  );
  return rows.map(serviceTypes.toRecord);
}

export async function listServiceTypes(q: Queryable, orgId: string): Promise<ServiceType[]> {
  const { rows } = await q.query(
    `select ${serviceTypes.selectList()} from service_types where org_id = $1 and not _deleted order by lower(display), id`,
    [orgId],
  );
  return rows.map(serviceTypes.toRecord);
}

/** Ids of every visit matching a selector, in id order (bulk operations snapshot these). */
export async function serviceIdsMatching(q: Queryable, orgId: string, selector: ServiceSelector): Promise<string[]> {
  const { where, params } = serviceConditions(orgId, selector);
  const { rows } = await q.query<{ id: string }>(`select s.id from services s where ${where.join(' and ')} order by s.id`, params.values);
  return rows.map((r) => r.id);
}
