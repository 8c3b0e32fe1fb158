import { reasonsIn, scopedCollections, SCOPES, type CollectionName, type ScopeName } from '../../shared/index.js';
import { fieldSql, tableOf } from './field-sql.js';

/**
 * Why a row is in a device's scope when other rows need it (a `neededBy` reason: a visit needs its
 * customer), kept so that it is a lookup, not a recomputation: the generated SQL of
 * scope-sql.ts uses these pieces. See README-scopes.md beside this file.
 *
 * - `scope_rows.needs`: on the entry of a needing row (a visit, or a quote in the office's scope),
 *   the id of the row it needs, set while the entry is present and the row live, null otherwise.
 *   It is what that entry counts for, so taking it back is exact whatever the row has become.
 * - `scope_needs (org, collection, row_id, audience, holders)`: per audience and needed row, how
 *   many of the audience's entries need it: the number of `scope_rows` entries whose `needs` names
 *   it. A row with no holders has no line.
 */

/** A needing edge: the collection whose rows are needed and the field of the needing row that names one. */
export interface NeedEdge {
  readonly collection: CollectionName;
  readonly field: string;
}

/** The collections of a scope whose rows need rows of `needed` (visits and quotes need the office's customers). */
export function needingOf(scope: ScopeName, needed: CollectionName): { collection: CollectionName; field: string }[] {
  return reasonsIn(scope, needed).flatMap((r) => ('neededBy' in r ? [{ collection: r.neededBy, field: r.field }] : []));
}

/** What rows of `c` need in a scope, or null. An entry records one needed id, so a collection needs at most one other per scope. */
export function needsOf(scope: ScopeName, c: CollectionName): NeedEdge | null {
  const edges = scopedCollections(scope).flatMap((needed) => needingOf(scope, needed).filter((n) => n.collection === c).map((n) => ({ collection: needed, field: n.field })));
  if (edges.length > 1) throw new Error(`In the ${scope} scope, ${c} is needed by more than one reason; scope_rows.needs records one`);
  return edges[0] ?? null;
}

/** What the entries of `c` record in `needs`, in whichever scope records it: the same edge in every scope (one column holds it). */
export function neededVia(c: CollectionName): NeedEdge | null {
  const edges = (Object.keys(SCOPES) as ScopeName[]).flatMap((scope) => {
    const edge = needsOf(scope, c);
    return edge ? [edge] : [];
  });
  if (edges.some((e) => e.collection !== edges[0]!.collection || e.field !== edges[0]!.field)) {
    throw new Error(`${c} needs different rows in different scopes; scope_rows.needs records one`);
  }
  return edges[0] ?? null;
}

/** What the needing row `alias` needs while held: the id its field names, if it is live. */
export const neededIdSql = (c: CollectionName, edge: NeedEdge, alias: string) => `case when not ${alias}._deleted then ${fieldSql(c, alias, edge.field)} end`;

/**
 * The audiences that hold `collection`'s row `t` because rows of theirs need it: one keyed lookup
 * of the counts, whatever number of rows need it (`offset 0` keeps it a lookup of its own).
 */
export function neededBySql(collection: CollectionName): string {
  return `select n.audience from (select n.audience from scope_needs n
                                    where n.org_id = t.org_id and n.collection = '${collection}' and n.row_id = t.id and n.holders > 0 offset 0) n`;
}

/**
 * `scope_needs_add(org, collection, gained audiences, gained ids, lost audiences, lost ids)`: each
 * gained (audience, id) counts one more holder, each lost one fewer; lines left with none go. On
 * every write's path, so it keeps generic plans as the refreshes do (scope-sql.ts, WRITE_PATH).
 */
export function needsAddFunction(): string {
  return `
create or replace function scope_needs_add(p_org text, p_collection text, p_gained_audiences text[], p_gained text[], p_lost_audiences text[], p_lost text[])
returns void language plpgsql set jit = off set plan_cache_mode = force_generic_plan as $fn$
begin
  if coalesce(cardinality(p_gained), 0) + coalesce(cardinality(p_lost), 0) = 0 then return; end if;
  insert into scope_needs as n (org_id, collection, row_id, audience, holders)
  select p_org, p_collection, x.row_id, x.audience, sum(x.delta)::integer
    from (select g.audience, g.row_id, 1 as delta from unnest(p_gained_audiences, p_gained) g(audience, row_id)
          union all
          select l.audience, l.row_id, -1 from unnest(p_lost_audiences, p_lost) l(audience, row_id)) x
   group by x.row_id, x.audience
  having sum(x.delta) <> 0
  on conflict (org_id, collection, row_id, audience) do update set holders = n.holders + excluded.holders;
  if coalesce(cardinality(p_lost), 0) > 0 then
    delete from scope_needs n where n.org_id = p_org and n.collection = p_collection and n.row_id = any(p_lost) and n.holders <= 0;
  end if;
end $fn$;`;
}

/**
 * `scope_recount_P_C(org)`: the repair. Every entry of a row needing C's rows records again what its
 * row needs now, and the scope's counts of C are recomputed from those entries. The rebuild runs it
 * before it refreshes C, so counts that drifted (a write made with the triggers off) are made
 * exact again. `own` keeps the scope's audiences (a technician's, or the office's).
 */
export function recountFunction(scope: ScopeName, c: CollectionName, name: string, own: (alias: string) => string): string {
  const needing = needingOf(scope, c);
  const entries = needing.map(({ collection: d, field }) => {
    const needed = `(select ${neededIdSql(d, { collection: c, field }, 't')} from ${tableOf(d)} t where t.org_id = s.org_id and t.id = s.row_id)`;
    const now = `case when s.present then ${needed} end`;
    return `  update scope_rows s set needs = ${now}
   where s.org_id = p_org and s.collection = '${d}' and ${own('s')} and s.needs is distinct from ${now};`;
  });
  return `
create or replace function ${name}(p_org text) returns void language plpgsql set jit = off as $fn$
begin
${entries.join('\n')}
  delete from scope_needs n where n.org_id = p_org and n.collection = '${c}' and ${own('n')};
  insert into scope_needs (org_id, collection, row_id, audience, holders)
  select p_org, '${c}', s.needs, s.audience, count(*)
    from scope_rows s
   where s.org_id = p_org and s.collection in (${needing.map((n) => `'${n.collection}'`).join(', ')}) and ${own('s')} and s.needs is not null
   group by s.needs, s.audience;
end $fn$;`;
}
