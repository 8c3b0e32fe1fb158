import {
  columnName,
  readsFrom,
  replicatedResources,
  SCOPED_COLLECTIONS,
  TECHNICIAN_SCOPE,
  type CollectionName,
  type FieldMeta,
  type ReplicatedResource,
  type ScopeReason,
} from '../../shared/index.js';

/**
 * The SQL that keeps each technician's feed (the `scope_rows` table, migration 0012), generated
 * from the one declaration of what a device holds (shared/sync/scopes.ts). Installed at start by
 * scopes.ts; the generated text is hashed, so a change of the rules installs it again.
 *
 * Per scoped collection C:
 * - `scope_refresh_C(org, ids, changed)` recomputes who holds the given rows: an entry for each
 *   technician that now holds one and did not (entered), present = false for one that no longer
 *   does (left), and, when the rows themselves changed, their holders' entries moved to the rows'
 *   new _seq (so the change reaches them). Entered and left entries take the row's own _seq when it
 *   changed in this statement, else a new one. Returns the ids whose holders changed.
 * - `scope_after_C(org, moved)`: the collections whose scope reads C's (quotes follow customers,
 *   customers are needed by visits) are refreshed for the rows that depend on the moved ones.
 * - statement triggers after insert and update: refresh the changed rows, then their dependents
 *   (for `neededBy`, the rows named by the changed rows' old and new values).
 * - `scope_rebuild(org)`: every collection recomputed, in dependency order.
 *
 * Everything runs in the writing transaction, which holds the organization's feed lock (taken by
 * the change-feed trigger, or by the push before it reads): positions follow commit order.
 */
const resourceOf = (collection: CollectionName): ReplicatedResource => replicatedResources.find((r) => r.collection === collection)!;
const tableOf = (collection: CollectionName) => resourceOf(collection).table;

/** The SQL of a field of `alias`'s row; `object.field` reads inside a stored object (jsonb). */
function fieldSql(collection: CollectionName, alias: string, path: string): string {
  const [field, ...inside] = path.split('.');
  const fields: Readonly<Record<string, { meta: FieldMeta }>> = resourceOf(collection).fields;
  const meta = fields[field!]?.meta;
  if (!meta) throw new Error(`The scope of ${collection} names ${path}, which ${collection} does not have`);
  const column = `${alias}.${columnName(field!, meta)}`;
  return inside.length ? `(${column} #>> '{${inside.join(',')}}')` : column;
}

/** The technicians a reason gives a row of `collection` (as `t`), one select per reason. */
function reasonSql(collection: CollectionName, reason: ScopeReason): string {
  if ('names' in reason) return `select ${fieldSql(collection, 't', reason.names)}`;
  if ('through' in reason) {
    return `select ${fieldSql(reason.collection, 'o', reason.naming)} from ${tableOf(reason.collection)} o
             where o.org_id = t.org_id and o.id = ${fieldSql(collection, 't', reason.through)}`;
  }
  if ('unassigned' in reason) {
    return `select w.id from users w where w.org_id = t.org_id and w.role = 'TECHNICIAN' and ${fieldSql(collection, 't', reason.unassigned)} is null`;
  }
  if ('follows' in reason) {
    return `select s.audience from scope_rows s
             where s.org_id = t.org_id and s.collection = '${reason.collection}' and s.row_id = ${fieldSql(collection, 't', reason.follows)} and s.present`;
  }
  // The holders of each row that needs t, looked up by that row's id (`offset 0` keeps the lookup
  // a subquery of its own: joined, a planner misled by a table grown in this transaction scanned
  // every entry of the collection per row, and a first import of 52,000 visits ran for hours).
  return `select s.audience from ${tableOf(reason.neededBy)} u
           cross join lateral (select s.audience from scope_rows s
                                where s.org_id = u.org_id and s.collection = '${reason.neededBy}' and s.row_id = u.id and s.present offset 0) s
           where u.org_id = t.org_id and ${fieldSql(reason.neededBy, 'u', reason.field)} = t.id and not u._deleted`;
}

function windowSql(collection: CollectionName): string {
  const fields = TECHNICIAN_SCOPE[collection].window;
  if (!fields) return '';
  const time = fields.map((f) => fieldSql(collection, 't', f)).join(', ');
  return ` and coalesce(${time}) >= now() - make_interval(days => v_days)`;
}

function reasonsOf(collection: CollectionName): readonly ScopeReason[] {
  const holds = TECHNICIAN_SCOPE[collection].holds;
  return holds === 'everything' ? [] : holds;
}

/**
 * The refresh compares who should hold the rows (desired) with who does (held) in one full
 * join, which PostgreSQL can only run as a hash or merge join: however wrong its estimates for
 * tables grown in this transaction, the comparison stays linear. The technicians are read once.
 */
function refreshFunction(c: CollectionName): string {
  const table = tableOf(c);
  return `
create or replace function scope_refresh_${c}(p_org text, p_ids text[], p_changed boolean) returns text[] language plpgsql as $fn$
declare
  v_days integer := coalesce((select window_days from scope_settings), 60);
  -- Only technicians have feeds of their own; a visit the office created is not the office's to hold.
  v_technicians text[] := array(select w.id from users w where w.org_id = p_org and w.role = 'TECHNICIAN');
  v_moved text[];
begin
  if coalesce(cardinality(p_ids), 0) = 0 then return '{}'; end if;
  with desired as (
    select distinct t.id as row_id, a.audience, t._seq as row_seq
      from ${table} t
      cross join lateral (
        ${reasonsOf(c).map((r) => reasonSql(c, r)).join('\n        union all\n        ')}
      ) a(audience)
     where t.org_id = p_org and t.id = any(p_ids) and a.audience = any(v_technicians)${windowSql(c)}
  ), held as (
    select s.row_id, s.audience, s.seq from scope_rows s
     where s.org_id = p_org and s.collection = '${c}' and s.row_id = any(p_ids) and s.present
  ), diff as (
    select coalesce(d.row_id, h.row_id) as row_id, coalesce(d.audience, h.audience) as audience, d.row_seq, h.seq as held_seq,
           h.row_id is null as enters, d.row_id is null as leaves
      from desired d full join held h on h.row_id = d.row_id and h.audience = d.audience
  ), entered as (
    insert into scope_rows as s (org_id, audience, collection, row_id, seq, present)
    select p_org, x.audience, '${c}', x.row_id, case when p_changed then x.row_seq else nextval('change_seq') end, true
      from diff x
     where x.enters
    on conflict (org_id, audience, collection, row_id) do update set seq = excluded.seq, present = true
    returning s.row_id
  ), departed as (
    update scope_rows s set present = false, seq = case when p_changed then t._seq else nextval('change_seq') end
      from diff x join ${table} t on t.org_id = p_org and t.id = x.row_id
     where x.leaves and s.org_id = p_org and s.collection = '${c}' and s.audience = x.audience and s.row_id = x.row_id
    returning s.row_id
  ), bumped as (
    update scope_rows s set seq = x.row_seq
      from diff x
     where p_changed and not x.enters and not x.leaves and x.held_seq < x.row_seq
       and s.org_id = p_org and s.collection = '${c}' and s.audience = x.audience and s.row_id = x.row_id
    returning s.row_id
  )
  select array(select row_id from entered union select row_id from departed) into v_moved;
  -- A row's own change notifies already (change_feed_stamp); entries moved by another table's write do here.
  if not p_changed and cardinality(v_moved) > 0 then perform pg_notify('pool_changes', p_org || ' ${table}'); end if;
  return v_moved;
end $fn$;`;
}

/** The edges out of `c`: each collection whose scope reads c's, with the reason that reads it. */
function downstreamOf(c: CollectionName): { collection: CollectionName; reason: ScopeReason }[] {
  return SCOPED_COLLECTIONS.flatMap((d) => reasonsOf(d).filter((r) => readsFrom(r) === c).map((reason) => ({ collection: d, reason })));
}

/** What a cascade from rows of c knows, as SQL array expressions. */
interface CascadeFrom {
  /** The rows whose holders changed. */
  moved: string;
  /** The rows that themselves changed (a statement's), or null when none did (a cascade's). */
  changed: string | null;
  /** The ids a `neededBy` edge must look at, given the field of c that names them. */
  named: (field: string) => string;
}

/**
 * Refreshes what depends on rows of `c`: rows that follow a moved row (`follows`), rows a moved or
 * changed row names (`neededBy`), and rows that reach a changed row (`through`: what they read is
 * the row's field, which only a change of the row moves).
 */
function cascadeSql(c: CollectionName, from: CascadeFrom): string {
  return downstreamOf(c)
    .flatMap(({ collection: d, reason }) => {
      const referring = (field: string, ids: string) => `array(select t.id from ${tableOf(d)} t where t.org_id = p_org and ${fieldSql(d, 't', field)} = any(${ids}))`;
      let candidates: string;
      if ('follows' in reason) candidates = referring(reason.follows, from.moved);
      else if ('neededBy' in reason) candidates = from.named(reason.field);
      else if ('through' in reason && from.changed) candidates = referring(reason.through, from.changed);
      else return [];
      return [`  perform scope_after_${d}(p_org, scope_refresh_${d}(p_org, ${candidates}, false));`];
    })
    .join('\n');
}

function afterFunction(c: CollectionName): string {
  const named = (field: string) => `array(select ${fieldSql(c, 't', field)} from ${tableOf(c)} t where t.org_id = p_org and t.id = any(p_moved))`;
  return `
create or replace function scope_after_${c}(p_org text, p_moved text[]) returns void language plpgsql as $fn$
begin
  if coalesce(cardinality(p_moved), 0) = 0 then return; end if;
${cascadeSql(c, { moved: 'p_moved', changed: null, named }) || '  null;'}
end $fn$;`;
}

/** The statement triggers of c's table: after insert (new rows) and after update (old and new). */
function triggerSql(c: CollectionName): string {
  const table = tableOf(c);
  const body = (update: boolean) => {
    const named = (field: string) => {
      const of = (rows: string) => `select ${fieldSql(c, 'n', field)} from ${rows} n where n.org_id = p_org`;
      return `array(${of('new_rows')}${update ? ` union ${of('old_rows')}` : ''})`;
    };
    return `
declare
  p_org text;
  v_ids text[];
  v_moved text[];
begin
  for p_org, v_ids in select n.org_id, array_agg(n.id) from new_rows n group by n.org_id loop
    v_moved := scope_refresh_${c}(p_org, v_ids, true);
${cascadeSql(c, { moved: 'v_moved', changed: 'v_ids', named }).replace(/^ {2}perform/gm, '    perform') || '    null;'}
  end loop;
  return null;
end`;
  };
  return `
create or replace function scope_on_insert_${c}() returns trigger language plpgsql as $fn$${body(false)} $fn$;
create or replace function scope_on_update_${c}() returns trigger language plpgsql as $fn$${body(true)} $fn$;
create or replace function scope_on_delete_${c}() returns trigger language plpgsql as $fn$
begin
  delete from scope_rows s using old_rows o where s.org_id = o.org_id and s.collection = '${c}' and s.row_id = o.id;
  return null;
end $fn$;
drop trigger if exists ${table}_scope_insert on ${table};
drop trigger if exists ${table}_scope_update on ${table};
drop trigger if exists ${table}_scope_delete on ${table};
create trigger ${table}_scope_insert after insert on ${table} referencing new table as new_rows for each statement execute function scope_on_insert_${c}();
create trigger ${table}_scope_update after update on ${table} referencing old table as old_rows new table as new_rows for each statement execute function scope_on_update_${c}();
create trigger ${table}_scope_delete after delete on ${table} referencing old table as old_rows for each statement execute function scope_on_delete_${c}();`;
}

/**
 * A technician created after rows named them (data imported before their token, say): the rows
 * that name them are recomputed, and what depends on those, so their feed holds what it should.
 */
function technicianTrigger(): string {
  const refreshes = SCOPED_COLLECTIONS.flatMap((c) => {
    const naming = reasonsOf(c)
      .flatMap((r) => ('names' in r ? [`${fieldSql(c, 't', r.names)} = any(v_new)`] : 'unassigned' in r ? [`${fieldSql(c, 't', r.unassigned)} is null`] : []))
      .join(' or ');
    if (!naming) return [];
    return [`    perform scope_after_${c}(p_org, scope_refresh_${c}(p_org, array(select t.id from ${tableOf(c)} t where t.org_id = p_org and (${naming})), false));`];
  });
  return `
create or replace function scope_on_new_technician() returns trigger language plpgsql as $fn$
declare
  p_org text;
  v_new text[];
begin
  for p_org, v_new in select n.org_id, array_agg(n.id) from new_rows n where n.role = 'TECHNICIAN' group by n.org_id loop
    perform pg_advisory_xact_lock(hashtextextended('change-feed:' || p_org, 0));
${refreshes.join('\n')}
  end loop;
  return null;
end $fn$;
drop trigger if exists users_scope_insert on users;
create trigger users_scope_insert after insert on users referencing new table as new_rows for each statement execute function scope_on_new_technician();`;
}

function rebuildFunction(): string {
  const steps = SCOPED_COLLECTIONS.map((c) => `  perform scope_refresh_${c}(p_org, array(select id from ${tableOf(c)} where org_id = p_org), false);`).join('\n');
  return `
create or replace function scope_rebuild(p_org text) returns void language plpgsql as $fn$
begin
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || p_org, 0));
${steps}
end $fn$;`;
}

/** Every function and trigger, in an order PostgreSQL accepts (functions before their callers run). */
export function scopeSql(): string {
  const reversed = [...SCOPED_COLLECTIONS].reverse();
  return [
    ...SCOPED_COLLECTIONS.map(refreshFunction),
    // scope_after_X calls scope_after_Y of its downstream: create those first.
    ...reversed.map(afterFunction),
    ...SCOPED_COLLECTIONS.map(triggerSql),
    technicianTrigger(),
    rebuildFunction(),
  ].join('\n');
}
