import {
  OFFICE_AUDIENCE,
  readsFrom,
  reasonsIn,
  SCOPED_COLLECTIONS,
  scopedCollections,
  SCOPES,
  scopesOf,
  type CollectionName,
  type ScopeName,
  type ScopeReason,
} from '../../shared/index.js';
import { fieldSql, tableOf } from './field-sql.js';
import { neededBySql, neededIdSql, neededVia, needingOf, needsAddFunction, needsOf, recountFunction } from './scope-needs-sql.js';

/**
 * The SQL that keeps every device's feed (the `scope_rows` table, migration 0012), generated from
 * the one declaration of what a device holds (shared/sync/scopes.ts). Installed at start by
 * scopes.ts; the generated text is hashed, so a change of the rules installs it again. The scheme,
 * why it is exact and how it is repaired: README-scopes.md beside this file.
 *
 * Each scope is a graph of its own (a technician's quotes follow their customers; the office's
 * customers are needed by its quotes), so each gets its own functions, named by its prefix P
 * (`tech`, `office`). Per scope and scoped collection C:
 * - `scope_refresh_P_C(org, ids, changed)` recomputes who of the scope holds the given rows: an
 *   entry for each audience (a technician, or the office's one feed) that now holds one and did not
 *   (entered), present = false for one that no longer does (left), and, when the rows themselves
 *   changed, their holders' entries moved to the rows' new _seq (so the change reaches them).
 *   Entered and left entries take the row's own _seq when it changed in this statement, else a new
 *   one. Returns the ids whose holders changed. Every reason is read for the given rows alone: a
 *   `neededBy` reason (a visit needs its customer) is one keyed lookup of the counts of who needs
 *   the row (`scope_needs`), which the refresh of the needing rows keeps exact by the difference
 *   each entry makes (its `needs`: scope-needs-sql.ts). So a write costs what the rows it changes
 *   touch, never what their customer has: a visit's insert reads its customer's counts, not its
 *   customer's other visits.
 * - `scope_after_P_C(org, moved)`: the collections whose scope reads C's (quotes follow customers,
 *   customers are needed by visits) are refreshed for the rows that depend on the moved ones.
 * - `scope_age_P(org, since)`: rows whose time left the scope's windows since `since` are
 *   recomputed (server/jobs/scope-ageing.ts runs it), so a window holds what it says.
 * - `scope_rebuild(org)`: every scope's collections recomputed, in each scope's dependency order,
 *   the counts of who needs a collection's rows recomputed from the entries before it
 *   (`scope_recount_P_C`), so a rebuild repairs counts that drifted.
 * Per scoped collection, statement triggers after insert and update refresh the changed rows in
 * every scope that narrows the collection, then their dependents (for `neededBy`, the rows named by
 * the changed rows' old and new values); after delete, the rows' entries go with what they counted,
 * and their dependents are refreshed alike.
 *
 * Everything runs in the writing transaction, which holds the organization's feed lock (taken by
 * the change-feed trigger, or by the push before it reads): positions follow commit order. Every
 * function is `set jit = off`: their statements are keyed lookups, but planned on a large table's
 * statistics their estimates crossed `jit_above_cost`, and compiling them cost a write 30-100 ms.
 * The functions a write runs (refresh, after, the triggers: WRITE_PATH) also keep one generic plan
 * per statement: PL/pgSQL otherwise plans the refresh's comparison again for every call with its
 * arrays' values (a custom plan), and that planning was most of a one-visit push's database time
 * (the four refreshes a visit's insert runs: 5.7 ms of 6 ms, against 1.1 ms with generic plans,
 * measured with track_functions). Every statement in them is a keyed lookup by the ids given,
 * which a generic plan serves as well at any number of ids.
 */
const WRITE_PATH = 'set jit = off set plan_cache_mode = force_generic_plan';
const PREFIX: Readonly<Record<ScopeName, string>> = { TECHNICIAN: 'tech', OFFICE: 'office' };

/** How a scope's functions know their audiences, their window and their own entries. */
const AUDIENCES: Readonly<Record<ScopeName, { declare: string; days: string; own: (alias: string) => string }>> = {
  TECHNICIAN: {
    // Only technicians have feeds of their own; a visit the office created is not the office's to hold this way.
    declare: `array(select w.id from users w where w.org_id = p_org and w.role = 'TECHNICIAN')`,
    days: `coalesce((select window_days from scope_settings), 60)`,
    own: (alias) => `${alias}.audience <> '${OFFICE_AUDIENCE}'`,
  },
  OFFICE: {
    declare: `array['${OFFICE_AUDIENCE}']`,
    days: `coalesce((select office_window_days from scope_settings), 14)`,
    own: (alias) => `${alias}.audience = '${OFFICE_AUDIENCE}'`,
  },
};

const fn = (kind: 'refresh' | 'after', scope: ScopeName, c: CollectionName) => `scope_${kind}_${PREFIX[scope]}_${c}`;
const quoted = (value: string) => `'${value.replace(/'/g, "''")}'`;
/** A row's time as the scope's windows compare it (a timestamptz column). */
const timeOf = (c: CollectionName, alias: string, fields: readonly string[]) => `coalesce(${fields.map((f) => fieldSql(c, alias, f)).join(', ')})`;

/** The audiences a reason gives a row of `collection` (as `t`), one select per reason. */
function reasonSql(collection: CollectionName, reason: Exclude<ScopeReason, { neededBy: CollectionName }>): string {
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
  if ('all' in reason) return `select unnest(v_audiences)`;
  if ('recent' in reason) return `select unnest(v_audiences) where ${fieldSql(collection, 't', reason.recent)} >= now() - make_interval(days => v_days)`;
  return `select unnest(v_audiences) where ${fieldSql(collection, 't', reason.matches)} in (${reason.values.map(quoted).join(', ')})`;
}

/**
 * Every reason of `collection` in the scope, one select each. The `neededBy` reasons are one: the
 * counts of who needs the row (scope-needs-sql.ts) hold every needing collection's entries.
 */
function reasonsSql(scope: ScopeName, collection: CollectionName): string {
  const reasons = reasonsIn(scope, collection);
  const own = reasons.flatMap((r) => ('neededBy' in r ? [] : [reasonSql(collection, r)]));
  const needed = reasons.some((r) => 'neededBy' in r) ? [neededBySql(collection)] : [];
  return [...needed, ...own].join('\n        union all\n        ');
}

/** What every held row meets besides a reason: the window, and the scope's condition. */
function windowSql(scope: ScopeName, c: CollectionName): string {
  const { window: fields, only } = SCOPES[scope][c];
  const inWindow = fields ? ` and ${timeOf(c, 't', fields)} >= now() - make_interval(days => v_days)` : '';
  const meets = only ? ` and ${fieldSql(c, 't', only.field)} in (${only.values.map(quoted).join(', ')})` : '';
  return inWindow + meets;
}

/**
 * The refresh compares who should hold the rows (desired) with who does (held) in one full
 * join, which PostgreSQL can only run as a hash or merge join: however wrong its estimates for
 * tables grown in this transaction, the comparison stays linear. The audiences are read once.
 *
 * What the comparison finds is applied in three steps. Entries gained are one insert (nothing to
 * join). Entries lost or moved are updated one by one by their key: written as one update joined
 * to the comparison, the planner (told by stale statistics that the organization holds one entry)
 * scanned all the organization's entries of the collection and, for each, the whole comparison:
 * a push of 2,000 visits into a company holding 52,000 took longer than a request may. By key,
 * the cost follows the rows that changed, not the company's size.
 *
 * Where the collection's rows need others in this scope (scope-needs-sql.ts), each entry also
 * records what it needs (`needs`), and the counts of the needed rows take the difference: one more
 * for what a gained or kept entry needs now, one fewer for what a lost or kept entry recorded.
 */
function refreshFunction(scope: ScopeName, c: CollectionName): string {
  const table = tableOf(c);
  const { declare, days, own } = AUDIENCES[scope];
  const needs = needsOf(scope, c);
  const entry = (ids: string, audiences: string) => `s.org_id = p_org and s.audience = ${audiences}[i] and s.collection = '${c}' and s.row_id = ${ids}[i]`;
  // Without needs, an entry's `needs` stays null, and these compare nulls.
  const neededNow = needs ? neededIdSql(c, needs, 't') : 'null::text';
  const counting = needs
    ? `
  perform scope_needs_add(p_org, '${needs.collection}', v_gained_audiences, v_gained, v_lost_audiences, v_lost);`
    : '';
  return `
create or replace function ${fn('refresh', scope, c)}(p_org text, p_ids text[], p_changed boolean) returns text[] language plpgsql ${WRITE_PATH} as $fn$
declare
  v_days integer := ${days};
  v_audiences text[] := ${declare};
  v_enter_ids text[]; v_enter_audiences text[]; v_enter_seqs bigint[]; v_enter_needs text[];
  v_leave_ids text[]; v_leave_audiences text[];
  v_keep_ids text[]; v_keep_audiences text[]; v_keep_seqs bigint[]; v_keep_needs text[];
  v_gained_audiences text[]; v_gained text[]; v_lost_audiences text[]; v_lost text[];
begin
  if coalesce(cardinality(p_ids), 0) = 0 then return '{}'; end if;
  with desired as (
    select distinct t.id as row_id, a.audience, t._seq as row_seq, ${neededNow} as needs
      from ${table} t
      cross join lateral (
        ${reasonsSql(scope, c)}
      ) a(audience)
     where t.org_id = p_org and t.id = any(p_ids) and a.audience = any(v_audiences)${windowSql(scope, c)}
  ), held as (
    select s.row_id, s.audience, s.seq, s.needs from scope_rows s
     where s.org_id = p_org and s.collection = '${c}' and s.row_id = any(p_ids) and s.present and ${own('s')}
  ), diff as (
    select coalesce(d.row_id, h.row_id) as row_id, coalesce(d.audience, h.audience) as audience, d.row_seq,
           d.needs as new_needs, h.needs as old_needs,
           h.row_id is null as enters, d.row_id is null as leaves,
           h.row_id is not null and d.row_id is not null as keeps,
           p_changed and h.row_id is not null and d.row_id is not null and h.seq < d.row_seq as bumps
      from desired d full join held h on h.row_id = d.row_id and h.audience = d.audience
  ), changes as (
    -- What an entry needs is counted once: gained where it now needs another row, lost where it needed another.
    select x.*, x.new_needs is not null and x.new_needs is distinct from x.old_needs as gains,
           x.old_needs is not null and x.old_needs is distinct from x.new_needs as loses
      from diff x where x.enters or x.leaves or x.bumps or (x.keeps and x.new_needs is distinct from x.old_needs)
  )
  select coalesce(array_agg(x.row_id) filter (where x.enters), '{}'), coalesce(array_agg(x.audience) filter (where x.enters), '{}'),
         coalesce(array_agg(x.row_seq) filter (where x.enters), '{}'), coalesce(array_agg(x.new_needs) filter (where x.enters), '{}'),
         coalesce(array_agg(x.row_id) filter (where x.leaves), '{}'), coalesce(array_agg(x.audience) filter (where x.leaves), '{}'),
         coalesce(array_agg(x.row_id) filter (where x.keeps), '{}'), coalesce(array_agg(x.audience) filter (where x.keeps), '{}'),
         coalesce(array_agg(case when x.bumps then x.row_seq end) filter (where x.keeps), '{}'), coalesce(array_agg(x.new_needs) filter (where x.keeps), '{}'),
         coalesce(array_agg(x.audience) filter (where x.gains), '{}'), coalesce(array_agg(x.new_needs) filter (where x.gains), '{}'),
         coalesce(array_agg(x.audience) filter (where x.loses), '{}'), coalesce(array_agg(x.old_needs) filter (where x.loses), '{}')
    into v_enter_ids, v_enter_audiences, v_enter_seqs, v_enter_needs, v_leave_ids, v_leave_audiences,
         v_keep_ids, v_keep_audiences, v_keep_seqs, v_keep_needs, v_gained_audiences, v_gained, v_lost_audiences, v_lost
    from changes x;
  -- Entered and left entries take the row's own _seq when it changed in this statement, else a new one.
  insert into scope_rows as s (org_id, audience, collection, row_id, seq, present, needs)
  select p_org, e.audience, '${c}', e.row_id, case when p_changed then e.row_seq else nextval('change_seq') end, true, e.needs
    from unnest(v_enter_ids, v_enter_audiences, v_enter_seqs, v_enter_needs) e(row_id, audience, row_seq, needs)
  on conflict (org_id, audience, collection, row_id) do update set seq = excluded.seq, present = true, needs = excluded.needs;
  for i in 1 .. cardinality(v_leave_ids) loop
    update scope_rows s set present = false, needs = null,
           seq = case when p_changed then coalesce((select t._seq from ${table} t where t.org_id = p_org and t.id = v_leave_ids[i]), nextval('change_seq')) else nextval('change_seq') end
     where ${entry('v_leave_ids', 'v_leave_audiences')};
  end loop;
  -- Held entries of rows that changed move to the rows' new _seq, so the change reaches them; each records what its row needs now.
  for i in 1 .. cardinality(v_keep_ids) loop
    update scope_rows s set seq = coalesce(v_keep_seqs[i], s.seq), needs = v_keep_needs[i] where ${entry('v_keep_ids', 'v_keep_audiences')};
  end loop;${counting}
  v_enter_ids := array(select distinct unnest(v_enter_ids || v_leave_ids));
  -- A row's own change notifies already (change_feed_stamp); entries moved by another table's write, or by age, do here.
  if not p_changed and cardinality(v_enter_ids) > 0 then perform pg_notify('pool_changes', p_org || ' ${table}'); end if;
  return v_enter_ids;
end $fn$;`;
}

/** The edges out of `c` in a scope: each collection whose scope reads c's, with the reason that reads it. */
function downstreamOf(scope: ScopeName, c: CollectionName): { collection: CollectionName; reason: ScopeReason }[] {
  return scopedCollections(scope).flatMap((d) => reasonsIn(scope, d).filter((r) => readsFrom(r) === c).map((reason) => ({ collection: d, reason })));
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
 * Refreshes what depends on rows of `c` in the scope: rows that follow a moved row (`follows`),
 * rows a moved or changed row names (`neededBy`), and rows that reach a changed row (`through`:
 * what they read is the row's field, which only a change of the row moves).
 */
function cascadeSql(scope: ScopeName, c: CollectionName, from: CascadeFrom): string {
  return downstreamOf(scope, c)
    .flatMap(({ collection: d, reason }) => {
      const referring = (field: string, ids: string) => `array(select t.id from ${tableOf(d)} t where t.org_id = p_org and ${fieldSql(d, 't', field)} = any(${ids}))`;
      let candidates: string;
      if ('follows' in reason) candidates = referring(reason.follows, from.moved);
      else if ('neededBy' in reason) candidates = from.named(reason.field);
      else if ('through' in reason && from.changed) candidates = referring(reason.through, from.changed);
      else return [];
      return [`  perform ${fn('after', scope, d)}(p_org, ${fn('refresh', scope, d)}(p_org, ${candidates}, false));`];
    })
    .join('\n');
}

function afterFunction(scope: ScopeName, c: CollectionName): string {
  const named = (field: string) => `array(select ${fieldSql(c, 't', field)} from ${tableOf(c)} t where t.org_id = p_org and t.id = any(p_moved))`;
  return `
create or replace function ${fn('after', scope, c)}(p_org text, p_moved text[]) returns void language plpgsql ${WRITE_PATH} as $fn$
begin
  if coalesce(cardinality(p_moved), 0) = 0 then return; end if;
${cascadeSql(scope, c, { moved: 'p_moved', changed: null, named }) || '  null;'}
end $fn$;`;
}

/**
 * The statement triggers of c's table, in every scope that narrows c: after insert (new rows) and
 * after update (old and new) each scope refreshes the rows, then what depends on them. After a
 * delete (a row gone for good, which no device is told of), the rows' entries go, with what they
 * counted as needing, and what depended on the rows is refreshed as for rows that moved.
 */
function triggerSql(c: CollectionName): string {
  const table = tableOf(c);
  const named = (sources: string[]) => (field: string) => `array(${sources.map((rows) => `select ${fieldSql(c, 'n', field)} from ${rows} n where n.org_id = p_org`).join(' union ')})`;
  const steps = (update: boolean) =>
    scopesOf(c).map(
      (scope) => `    v_moved := ${fn('refresh', scope, c)}(p_org, v_ids, true);
${indent(cascadeSql(scope, c, { moved: 'v_moved', changed: 'v_ids', named: named(update ? ['new_rows', 'old_rows'] : ['new_rows']) }))}`,
    );
  const body = (update: boolean) => `
declare
  p_org text;
  v_ids text[];
  v_moved text[];
begin
  for p_org, v_ids in select n.org_id, array_agg(n.id) from new_rows n group by n.org_id loop
${steps(update).join('\n')}
  end loop;
  return null;
end`;
  return `
create or replace function scope_on_insert_${c}() returns trigger language plpgsql ${WRITE_PATH} as $fn$${body(false)} $fn$;
create or replace function scope_on_update_${c}() returns trigger language plpgsql ${WRITE_PATH} as $fn$${body(true)} $fn$;
create or replace function scope_on_delete_${c}() returns trigger language plpgsql ${WRITE_PATH} as $fn$${deleteBody(c, named(['old_rows']))} $fn$;
drop trigger if exists ${table}_scope_insert on ${table};
drop trigger if exists ${table}_scope_update on ${table};
drop trigger if exists ${table}_scope_delete on ${table};
create trigger ${table}_scope_insert after insert on ${table} referencing new table as new_rows for each statement execute function scope_on_insert_${c}();
create trigger ${table}_scope_update after update on ${table} referencing old table as old_rows new table as new_rows for each statement execute function scope_on_update_${c}();
create trigger ${table}_scope_delete after delete on ${table} referencing old table as old_rows for each statement execute function scope_on_delete_${c}();`;
}

function deleteBody(c: CollectionName, named: (field: string) => string): string {
  const needs = neededVia(c);
  const forget = needs
    ? `    with gone as (delete from scope_rows s where s.org_id = p_org and s.collection = '${c}' and s.row_id = any(v_ids) returning s.audience, s.needs)
    select coalesce(array_agg(g.audience), '{}'), coalesce(array_agg(g.needs), '{}') into v_audiences, v_needs from gone g where g.needs is not null;
    perform scope_needs_add(p_org, '${needs.collection}', '{}', '{}', v_audiences, v_needs);`
    : `    delete from scope_rows s where s.org_id = p_org and s.collection = '${c}' and s.row_id = any(v_ids);`;
  const cascades = scopesOf(c).map((scope) => indent(cascadeSql(scope, c, { moved: 'v_ids', changed: 'v_ids', named })));
  return `
declare
  p_org text;
  v_ids text[];
  v_audiences text[];
  v_needs text[];
begin
  for p_org, v_ids in select o.org_id, array_agg(o.id) from old_rows o group by o.org_id loop
    -- Under the organization's feed lock like every other write of its scopes (a delete stamps no _seq, so nothing took it yet).
    perform pg_advisory_xact_lock(hashtextextended('change-feed:' || p_org, 0));
${forget}
${cascades.filter(Boolean).join('\n')}
  end loop;
  return null;
end`;
}

const indent = (sql: string) => sql.replace(/^ {2}perform/gm, '    perform');

/**
 * A technician created after rows named them (data imported before their token, say): the rows
 * that name them, directly or through a row that does, are recomputed, and what depends on those,
 * so their feed holds what it should.
 */
function technicianTrigger(): string {
  const refreshes = scopedCollections('TECHNICIAN').flatMap((c) => {
    const naming = reasonsIn('TECHNICIAN', c)
      .flatMap((r) => {
        if ('names' in r) return [`${fieldSql(c, 't', r.names)} = any(v_new)`];
        if ('unassigned' in r) return [`${fieldSql(c, 't', r.unassigned)} is null`];
        // Rows held through another row that names them (a movement of the truck given to them
        // before they existed): no cascade reaches these, as the row they go through did not change.
        if ('through' in r) {
          return [`${fieldSql(c, 't', r.through)} in (select o.id from ${tableOf(r.collection)} o where o.org_id = p_org and ${fieldSql(r.collection, 'o', r.naming)} = any(v_new))`];
        }
        return [];
      })
      .join(' or ');
    if (!naming) return [];
    return [`    perform ${fn('after', 'TECHNICIAN', c)}(p_org, ${fn('refresh', 'TECHNICIAN', c)}(p_org, array(select t.id from ${tableOf(c)} t where t.org_id = p_org and (${naming})), false));`];
  });
  return `
create or replace function scope_on_new_technician() returns trigger language plpgsql set jit = off as $fn$
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

/**
 * Rows whose time left the scope since `p_since`: held rows of a windowed collection whose time
 * passed the window's first day, and rows held for being recent whose time did. Each is recomputed
 * (it may still be held for another reason), and what depends on it follows.
 */
function ageFunction(scope: ScopeName): string {
  const steps = scopedCollections(scope).flatMap((c) => {
    const times = [...(SCOPES[scope][c].window ? [timeOf(c, 't', SCOPES[scope][c].window!)] : []), ...reasonsIn(scope, c).flatMap((r) => ('recent' in r ? [fieldSql(c, 't', r.recent)] : []))];
    if (!times.length) return [];
    const aged = times.map((time) => `(${time} < v_cutoff and ${time} >= p_since - make_interval(days => v_days))`).join(' or ');
    const candidates = `array(select distinct s.row_id from scope_rows s join ${tableOf(c)} t on t.org_id = s.org_id and t.id = s.row_id
                        where s.org_id = p_org and s.collection = '${c}' and s.present and ${AUDIENCES[scope].own('s')} and (${aged}))`;
    return [`  perform ${fn('after', scope, c)}(p_org, ${fn('refresh', scope, c)}(p_org, ${candidates}, false));`];
  });
  return `
create or replace function scope_age_${PREFIX[scope]}(p_org text, p_since timestamptz) returns void language plpgsql set jit = off as $fn$
declare
  v_days integer := ${AUDIENCES[scope].days};
  v_cutoff timestamptz := now() - make_interval(days => v_days);
begin
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || p_org, 0));
${steps.join('\n') || '  null;'}
end $fn$;`;
}

const recountName = (scope: ScopeName, c: CollectionName) => `scope_recount_${PREFIX[scope]}_${c}`;

/** The collections of a scope whose rows others need, each with its recount (scope-needs-sql.ts). */
const recounted = (scope: ScopeName) => scopedCollections(scope).filter((c) => needingOf(scope, c).length > 0);

/**
 * Every scope's collections recomputed, in each scope's dependency order; before a collection whose
 * rows others need, its counts are recomputed from the entries (so the rebuild repairs any drift).
 */
function rebuildFunction(): string {
  const steps = (Object.keys(SCOPES) as ScopeName[]).flatMap((scope) =>
    scopedCollections(scope).flatMap((c) => [
      ...(recounted(scope).includes(c) ? [`  perform ${recountName(scope, c)}(p_org);`] : []),
      `  perform ${fn('refresh', scope, c)}(p_org, array(select id from ${tableOf(c)} where org_id = p_org), false);`,
    ]),
  );
  return `
create or replace function scope_rebuild(p_org text) returns void language plpgsql set jit = off as $fn$
begin
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || p_org, 0));
${steps.join('\n')}
end $fn$;`;
}

/** Every function and trigger, in an order PostgreSQL accepts (functions before their callers run). */
export function scopeSql(): string {
  const scopes = Object.keys(SCOPES) as ScopeName[];
  return [
    needsAddFunction(),
    ...scopes.flatMap((scope) => recounted(scope).map((c) => recountFunction(scope, c, recountName(scope, c), AUDIENCES[scope].own))),
    ...scopes.flatMap((scope) => scopedCollections(scope).map((c) => refreshFunction(scope, c))),
    // scope_after_X calls scope_after_Y of its downstream: create those first.
    ...scopes.flatMap((scope) => [...scopedCollections(scope)].reverse().map((c) => afterFunction(scope, c))),
    ...SCOPED_COLLECTIONS.map(triggerSql),
    technicianTrigger(),
    ...scopes.map(ageFunction),
    rebuildFunction(),
  ].join('\n');
}
