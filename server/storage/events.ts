import { createHash } from 'node:crypto';
import type { Database, Queryable } from './db.js';
import { eventSql } from './event-sql.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';

/** Events as stored (migration 0028): written by the triggers of event-sql.ts, read here. */
export interface StoredEvent {
  id: string;
  orgId: string;
  /** Position in the organization's change sequence: commit order. */
  seq: number;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** The same constant the migrations and the scope installation take: processes starting together install once. */
const MIGRATION_LOCK_KEY = 7_406_113;

/**
 * Installs the event triggers (event-sql.ts) when the declared rules differ from those the store
 * has. Returns whether anything was installed.
 */
export async function installEventTriggers(db: Database): Promise<boolean> {
  const sql = eventSql();
  const hash = createHash('sha256').update(sql).digest('hex');
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    const { rows } = await tx.query<{ rules_hash: string }>('select rules_hash from event_settings');
    if (rows[0]?.rules_hash === hash) return false;
    await tx.exec(sql);
    await tx.query(`insert into event_settings (id, rules_hash) values (1, $1) on conflict (id) do update set rules_hash = excluded.rules_hash`, [hash]);
    return true;
  });
}

/** An event's id is `evt_` and its seq (unique: one sequence for every organization). */
export const EVENT_ID_PREFIX = 'evt_';
const idOf = (alias: string) => `'${EVENT_ID_PREFIX}' || ${alias}.seq`;
/** The seq an event id names, or null for a string that names none. */
export const seqOfEventId = (id: string): number | null => (/^evt_[1-9]\d{0,17}$/.test(id) ? Number(id.slice(EVENT_ID_PREFIX.length)) : null);

const COLUMNS = `${idOf('e')} as id, e.org_id as "orgId", e.seq, e.type, e.occurred_at as "occurredAt", e.data`;

/** The feed's order: the organization's change sequence. */
export const EVENT_KEYS: readonly SortKey[] = [{ expr: 'e.seq', type: 'bigint', desc: false }];

export interface EventFilter {
  types?: readonly string[] | null;
}

/**
 * A page of the organization's events of the last `days` days, in seq order. A page read after
 * `seq` never misses an event committed later: any such event has a higher seq (the feed lock).
 */
export function eventPage(q: Queryable, orgId: string, filter: EventFilter, days: number, window: PageWindow): Promise<PageRows<StoredEvent>> {
  const p = new Params([orgId]);
  const where = ['e.org_id = $1', `e.occurred_at >= now() - make_interval(days => ${p.add(days)})`];
  if (filter.types?.length) where.push(`e.type = any(${p.add(filter.types)}::text[])`);
  return readPage(q, { select: COLUMNS, from: 'events e', where, params: p, keys: EVENT_KEYS, window, toRecord: (r) => r as unknown as StoredEvent });
}

export async function eventById(q: Queryable, orgId: string, id: string): Promise<StoredEvent | null> {
  const seq = seqOfEventId(id);
  if (seq === null) return null;
  const { rows } = await q.query<StoredEvent>(`select ${COLUMNS} from events e where e.org_id = $1 and e.seq = $2`, [orgId, seq]);
  return rows[0] ?? null;
}

/** The organization's newest event seq this snapshot sees (0 when none): every event at or below it is committed. */
export async function eventHead(q: Queryable, orgId: string): Promise<number> {
  const { rows } = await q.query<{ seq: number | null }>('select max(seq) as seq from events where org_id = $1', [orgId]);
  return rows[0]?.seq ?? 0;
}

/** Deletes events older than `days` days, in every organization; returns how many. */
export async function pruneEvents(q: Queryable, days: number): Promise<number> {
  const { rowCount } = await q.query(`delete from events where occurred_at < now() - make_interval(days => $1)`, [days]);
  return rowCount;
}
