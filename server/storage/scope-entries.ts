import { DEPARTED, type ResourceDef } from '../../shared/index.js';
import { jsonArrayBytes, leavingOut, paramsFrom, type FeedPage, type LeaveOut } from './table-feed.js';
import type { Queryable } from './db.js';
import type { RecordTable } from './records.js';

/**
 * Reading a technician's feed of a collection: their `scope_rows` entries (migration 0012, kept by
 * the triggers of scope-sql.ts) in position order. A held row is delivered as it is now (its
 * tombstone if deleted); a row that left their scope as a departure (shared/sync/document.ts), a
 * tombstone for this device alone that says nothing of the row's current state. Each entry is one
 * document, so pages stay full until the device has caught up.
 */
const LEFT = (alias: string) => `json_build_object('id', ${alias}.row_id, '_deleted', true, '${DEPARTED}', true)::text`;

/** The document of an entry (`s`) joined to its row (`t`, left joined, `d` its JSON select list). */
const entryDocument = `case when s.present and t.id is not null then row_to_json(d)::text else ${LEFT('s')} end`;

function joined(table: RecordTable<ResourceDef>): string {
  return `left join ${table.resource.table} t on t.org_id = s.org_id and t.id = s.row_id,
          lateral (select ${table.jsonSelectList('t', '$1')}, t._deleted as "_deleted") d`;
}

/** A page of the technician's feed, as `readFeedPage` gives the table's: documents as JSON bytes, and the feed's head. */
export async function readScopePage(
  q: Queryable,
  table: RecordTable<ResourceDef>,
  orgId: string,
  audience: string,
  collection: string,
  afterSeq: number,
  limit: number,
  leaveOut?: LeaveOut,
): Promise<FeedPage> {
  const { params, param } = paramsFrom([orgId, afterSeq, limit, audience, collection]);
  const { rows } = await q.query<{ head: number; seq: number | null; doc: string | null }>(
    `select h.head, p.seq, p.doc
       from (select coalesce(max(seq), 0) as head from scope_rows where org_id = $1 and audience = $4 and collection = $5) h
       left join lateral (
         select s.seq, ${entryDocument} as doc
           from scope_rows s ${joined(table)}
          where s.org_id = $1 and s.audience = $4 and s.collection = $5 and s.seq > $2${leavingOut(leaveOut, { seq: 's.seq', present: 's.present' }, param)}
          order by s.seq
          limit $3) p on true
      order by p.seq`,
    params,
  );
  const docs = rows.filter((r) => r.doc !== null);
  return { documents: jsonArrayBytes(docs.map((r) => r.doc!)), lastSeq: docs.at(-1)?.seq ?? null, count: docs.length, head: rows[0]?.head ?? 0 };
}

/** The last position of the technician's feed this snapshot sees (0: empty). */
export async function scopeHead(q: Queryable, orgId: string, audience: string, collection: string): Promise<number> {
  const { rows } = await q.query<{ seq: number | null }>(
    'select max(seq) as seq from scope_rows where org_id = $1 and audience = $2 and collection = $3',
    [orgId, audience, collection],
  );
  return rows[0]?.seq ?? 0;
}

/** The technician's entries after a position, oldest first: which row, where, and whether it is held. */
export async function scopeEntriesAfter(
  q: Queryable,
  orgId: string,
  audience: string,
  collection: string,
  afterSeq: number,
  limit: number,
): Promise<{ id: string; seq: number; present: boolean }[]> {
  const { rows } = await q.query<{ id: string; seq: number; present: boolean }>(
    `select row_id as id, seq, present from scope_rows
      where org_id = $1 and audience = $2 and collection = $3 and seq > $4 order by seq limit $5`,
    [orgId, audience, collection, afterSeq, limit],
  );
  return rows;
}

/**
 * Every technician's entries of a collection after a position (the live fan-out), each with its
 * document's JSON, oldest first.
 */
export async function readScopeEntries(
  q: Queryable,
  table: RecordTable<ResourceDef>,
  orgId: string,
  collection: string,
  afterSeq: number,
  limit: number,
): Promise<{ audience: string; seq: number; doc: string }[]> {
  const { rows } = await q.query<{ audience: string; seq: number; doc: string }>(
    `select s.audience, s.seq, ${entryDocument} as doc
       from scope_rows s ${joined(table)}
      where s.org_id = $1 and s.collection = $2 and s.seq > $3
      order by s.seq
      limit $4`,
    [orgId, collection, afterSeq, limit],
  );
  return rows;
}

/** The last position of the collection's entries, over every technician (0: none). */
export async function scopeLiveHead(q: Queryable, orgId: string, collection: string): Promise<number> {
  const { rows } = await q.query<{ seq: number | null }>('select max(seq) as seq from scope_rows where org_id = $1 and collection = $2', [orgId, collection]);
  return rows[0]?.seq ?? 0;
}

/** For each technician, the position of their last entry at or before `atOrBefore` (absent: none). */
export async function lastPositions(q: Queryable, orgId: string, collection: string, audiences: readonly string[], atOrBefore: number): Promise<Map<string, number>> {
  if (!audiences.length) return new Map();
  const { rows } = await q.query<{ audience: string; seq: number }>(
    `select a.audience, p.seq
       from unnest($3::text[]) a(audience)
       cross join lateral (
         select seq from scope_rows where org_id = $1 and audience = a.audience and collection = $2 and seq <= $4
          order by seq desc limit 1) p`,
    [orgId, collection, audiences, atOrBefore],
  );
  return new Map(rows.map((r) => [r.audience, r.seq]));
}

/**
 * Rows a technician's device pushed but does not hold any more (the office moved them away while
 * it was offline): a leave at a new position for each, so it reaches the device after its push.
 * The leave it had was passed over while its own change waited to be pushed; without this one the
 * row would stay on the device for good. Returns the ids given a leave.
 */
export async function leaveAgain(tx: Queryable, orgId: string, audience: string, collection: string, table: string, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  const { rows } = await tx.query<{ id: string }>(
    `insert into scope_rows as s (org_id, audience, collection, row_id, seq, present)
     select $1, $2, $3, r.id, nextval('change_seq'), false
       from unnest($4::text[]) r(id)
      where not exists (select 1 from scope_rows h where h.org_id = $1 and h.audience = $2 and h.collection = $3 and h.row_id = r.id and h.present)
        and exists (select 1 from ${table} t where t.org_id = $1 and t.id = r.id)
     on conflict (org_id, audience, collection, row_id) do update set seq = excluded.seq
     returning s.row_id as id`,
    [orgId, audience, collection, [...new Set(ids)]],
  );
  if (rows.length) await tx.query(`select pg_notify('pool_changes', $1)`, [`${orgId} ${table}`]);
  return rows.map((r) => r.id);
}

/**
 * Whether the row was ever in the audience's feed (an entry, present or left): a customer a
 * technician's phone held at some time, as when it took a payment there offline.
 */
export async function everHeld(q: Queryable, orgId: string, audience: string, collection: string, rowId: string): Promise<boolean> {
  const { rows } = await q.query('select 1 from scope_rows where org_id = $1 and audience = $2 and collection = $3 and row_id = $4', [orgId, audience, collection, rowId]);
  return rows.length > 0;
}
