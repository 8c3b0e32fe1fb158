import { BAND_COLLECTIONS, type BandRule, type CollectionName, type HeldBand, type ResourceDef } from '../../shared/index.js';
import { jsonArrayBytes, type FeedEntry, type FeedPage, type Param } from './table-feed.js';
import type { Queryable } from './db.js';
import { fieldSql, tableOf } from './field-sql.js';
import { analyzeTable, staleTables } from './statistics.js';
import type { RecordTable } from './records.js';

/**
 * A page of a priority band (shared/sync/priorities.ts): the rows of a device's feed that lie in
 * the band, live, each as it is now, in position order after `afterSeq`. Only rows the device
 * holds: a technician's entries in `scope_rows`, or the table itself for a device that holds the
 * whole collection. Position order makes the band's own pages exact: a row that changes while
 * they are read moves to a later position, so it is read there rather than lost.
 */
export type BandFeed = { audience: string } | 'table';

export interface BandRange {
  from: string;
  to: string;
}

/** Parameters: $1 org, $2 after, $3 limit, $4 from, $5 to, and $6 audience for a scoped feed. */
const AUDIENCE = '$6';

/** A visit's start as its sort index has it (services_by_start), so a range uses the index. */
const timeSql = (collection: CollectionName, alias: string, field: string) => `coalesce(${fieldSql(collection, alias, field)}, '-infinity'::timestamptz)`;
const inRange = (collection: CollectionName, alias: string, field: string, from = '$4', to = '$5') =>
  `${timeSql(collection, alias, field)} >= ${from} and ${timeSql(collection, alias, field)} < ${to}`;

/** Keeps `alias`'s rows the device holds, when the feed is a scope's (the table's feed holds every row): each row's entry by its key. */
function heldJoin(feed: BandFeed, collection: CollectionName, alias: string, entry: string): string {
  if (feed === 'table') return '';
  return `cross join lateral (select 1 from scope_rows ${entry} where ${entry}.org_id = ${alias}.org_id and ${entry}.audience = ${AUDIENCE}
                                and ${entry}.collection = '${collection}' and ${entry}.row_id = ${alias}.id and ${entry}.present offset 0) ${entry}`;
}

/**
 * A band of rows whose own time places them (the visits): their ids, worked out first and on their
 * own (materialized), from the visits' start-time index, then each row's entry by its key. Left to
 * the planner as one join, a store without statistics (PGlite has no autovacuum) ran the
 * customers' band as a scan of every entry per visit: 6 s for the demo's 36 customers.
 */
function timedPageSql(feed: BandFeed, collection: CollectionName, time: string, name: string, selectList: string): string {
  // Each band row looked up by its key: its entry (the device's position of it) and the row itself,
  // each a subquery of its own (`offset 0`), so no estimate can turn the lookups into scans.
  const entry =
    feed === 'table'
      ? `select t0._seq as seq from ${name} t0 where t0.org_id = $1 and t0.id = b.id offset 0`
      : `select s.seq from scope_rows s where s.org_id = $1 and s.audience = ${AUDIENCE} and s.collection = '${collection}' and s.row_id = b.id and s.present offset 0`;
  return `
    with band as materialized (select t.id from ${name} t where t.org_id = $1 and not t._deleted and ${inRange(collection, 't', time)})
    select e.seq, row_to_json(d)::text as doc
      from band b
      cross join lateral (${entry}) e
      cross join lateral (select * from ${name} t1 where t1.org_id = $1 and t1.id = b.id and not t1._deleted offset 0) t
      cross join lateral (select ${selectList}) d
     where e.seq > $2
     order by e.seq
     limit $3`;
}

/**
 * A band of rows that rows of another collection need (a visit's customer): the device's feed of
 * the collection read in position order from `afterSeq`, each row kept if a visit of the band the
 * device holds names it (one probe of the visits' by-customer index, written as a scalar subquery so
 * it stays a probe), until the page is full. Worked out the other way round (the band's customers,
 * then their positions, then a page of them), every page repeated the whole band: the office's week
 * band of 13,000 customers took 1.4 s a page, 18 s in all, where a page now reads about a thousand
 * entries.
 */
function neededPageSql(feed: BandFeed, collection: CollectionName, rule: Extract<BandRule, { neededBy: CollectionName }>, name: string, selectList: string): string {
  const needing = BAND_COLLECTIONS[rule.neededBy];
  if (!needing || !('time' in needing)) throw new Error(`The band of ${collection} follows ${rule.neededBy}, which has no time of its own`);
  const needed = `(select true from ${tableOf(rule.neededBy)} u ${heldJoin(feed, rule.neededBy, 'u', 'h')}
                    where u.org_id = $1 and ${fieldSql(rule.neededBy, 'u', rule.field)} = t.id and not u._deleted and ${inRange(rule.neededBy, 'u', needing.time)}
                    limit 1)`;
  if (feed === 'table') {
    return `
      select t._seq as seq, row_to_json(d)::text as doc
        from ${name} t
        cross join lateral (select ${selectList}) d
       where t.org_id = $1 and t._seq > $2 and not t._deleted and ${needed}
       order by t._seq
       limit $3`;
  }
  return `
    select e.seq, row_to_json(d)::text as doc
      from scope_rows e
      cross join lateral (select * from ${name} t1 where t1.org_id = $1 and t1.id = e.row_id and not t1._deleted offset 0) t
      cross join lateral (select ${selectList}) d
     where e.org_id = $1 and e.audience = ${AUDIENCE} and e.collection = '${collection}' and e.present and e.seq > $2 and ${needed}
     order by e.seq
     limit $3`;
}

export async function readBandPage(
  q: Queryable,
  table: RecordTable<ResourceDef>,
  feed: BandFeed,
  orgId: string,
  collection: CollectionName,
  afterSeq: number,
  limit: number,
  range: BandRange,
): Promise<FeedPage> {
  const rule = BAND_COLLECTIONS[collection];
  if (!rule) throw new Error(`${collection} has no priority band`);
  const name = table.resource.table;
  await analyzeIfStale(q, ['scope_rows', name, ...('neededBy' in rule ? [tableOf(rule.neededBy)] : [])]);
  const selectList = `${table.jsonSelectList('t', '$1')}, t._deleted as "_deleted"`;
  const sql = 'time' in rule ? timedPageSql(feed, collection, rule.time, name, selectList) : neededPageSql(feed, collection, rule, name, selectList);
  const params: unknown[] = [orgId, afterSeq, limit, range.from, range.to];
  if (feed !== 'table') params.push(feed.audience);
  const { rows } = await q.query<{ seq: number; doc: string }>(sql, params);
  // A band is read to its end by the device; it needs no feed head (it moves no checkpoint).
  return { documents: jsonArrayBytes(rows.map((r) => r.doc)), lastSeq: rows.at(-1)?.seq ?? null, count: rows.length, head: 0 };
}

/**
 * A band page looks each of its rows up by key; planned on guesses (a store never analyzed: PGlite
 * right after an import, before the statistics keeper's next round), the planner can pick a smaller
 * index that does not hold the key and scan the device's whole feed per row: 8.3 s for a page of
 * 1,000 visits of a 20-technician company, where 50 ms is usual. The tables a band reads are
 * analyzed first when they grew since their statistics (a catalog read when they did not).
 */
async function analyzeIfStale(q: Queryable, tables: readonly string[]): Promise<void> {
  const stale = (await staleTables(q)).filter((t) => tables.includes(t.name));
  for (const table of stale) await analyzeTable(q, table.name);
}

/**
 * SQL true of a row of the feed (`t`, its entry `entry`) that a band the device holds brought and
 * that has not changed since (shared/sync/priorities.ts, `HeldBand`): its entry at or before the
 * band's position, held, live, and in the band now; for a row the band's visits need, also named
 * by a visit of the band held at or before the visits' position. Null when the band tells nothing
 * of this collection (no position for it): the feed then leaves nothing out.
 */
export function heldBandSql(feed: BandFeed, collection: CollectionName, held: HeldBand, entry: FeedEntry, param: Param): string | null {
  const rule = BAND_COLLECTIONS[collection];
  const seq = held.at[collection];
  if (!rule || seq === undefined) return null;
  if ('time' in rule) return `(${unchangedSql(entry, seq, param)} and ${inRange(collection, 't', rule.time, param(held.from), param(held.to))})`;
  const needing = BAND_COLLECTIONS[rule.neededBy];
  const needingSeq = held.at[rule.neededBy];
  if (!needing || !('time' in needing) || needingSeq === undefined) return null;
  const heldVisit =
    feed === 'table'
      ? `and u._seq <= ${param(needingSeq)}`
      : `and exists (select 1 from scope_rows h where h.org_id = u.org_id and h.audience = ${param(feed.audience)} and h.collection = '${rule.neededBy}'
                       and h.row_id = u.id and h.present and h.seq <= ${param(needingSeq)})`;
  return `(${unchangedSql(entry, seq, param)} and exists (select 1 from ${tableOf(rule.neededBy)} u
                                where u.org_id = t.org_id and ${fieldSql(rule.neededBy, 'u', rule.field)} = t.id and not u._deleted
                                  and ${inRange(rule.neededBy, 'u', needing.time, param(held.from), param(held.to))} ${heldVisit}))`;
}

/** The row (`t`) held live at an entry at or before `seq`: unchanged since the band was read. */
const unchangedSql = (entry: FeedEntry, seq: number, param: Param) =>
  `${entry.seq} <= ${param(seq)}${entry.present ? ` and ${entry.present}` : ''} and t.id is not null and not t._deleted`;
