import { columnsOf, EVENT_SOURCES, resources, type EventCondition, type EventRule, type EventSource, type RowChange } from '../../shared/index.js';
import { lowStockSql } from './inventory.js';

/**
 * The statement triggers that write events (the `events` table, migration 0028), generated from
 * the one declaration of event types (shared/events/declarations.ts) and installed at start by
 * events.ts (hashed, like the scope triggers: a change of the rules installs them again).
 *
 * Per declared table and kind of change (insert, update), one trigger `for each statement` with
 * its transition table(s): the changed rows are read once, each gets the type of the first rule
 * it matches (one change, one event), and the events are one insert for the whole statement, so
 * a push of 2,000 visits costs one statement here, not 2,000.
 *
 * Each event takes its `seq` from change_seq while the transaction holds the organization's feed
 * lock (the change-feed trigger took it for a replicated table's rows; for the job tables the
 * trigger takes it first), so within an organization event order is commit order and a cursor
 * over `seq` never skips an event committed late. Organizations with a webhook endpoint are told
 * at commit (NOTIFY pool_events <org>), which wakes the delivery workers of every process.
 */
interface Column {
  column: string;
  timestamp: boolean;
}

interface SourceTable {
  /** Field name -> column, as the declaration names fields. */
  columns: ReadonlyMap<string, Column>;
  /** A replicated table: its rows carry _deleted, and the change-feed trigger holds the organization's lock. */
  replicated: boolean;
  /** Fields listed in an update's `changes` (public fields, not the id or timestamps). */
  changeable: readonly string[];
}

/** The job tables events are declared on, which are not resources: the fields their rules read. */
const JOB_TABLES: Readonly<Record<string, Record<string, Column>>> = {
  bulk_operations: {
    id: { column: 'id', timestamp: false },
    kind: { column: 'kind', timestamp: false },
    status: { column: 'status', timestamp: false },
    finishedAt: { column: 'finished_at', timestamp: true },
  },
  outbox: {
    id: { column: 'id', timestamp: false },
    status: { column: 'status', timestamp: false },
    serviceId: { column: 'service_id', timestamp: false },
    channel: { column: 'channel', timestamp: false },
  },
};

const SERVER_STAMPS = new Set(['id', 'createdAt', 'updatedAt']);

function sourceTable(table: string): SourceTable {
  const resource = resources.find((r) => r.table === table);
  if (resource) {
    const fields: Readonly<Record<string, { meta: { internal: boolean } }>> = resource.fields;
    return {
      columns: new Map(columnsOf(resource).map((m) => [m.field, { column: m.column, timestamp: m.ddlType === 'timestamptz' }])),
      replicated: resource.collection !== null,
      changeable: Object.keys(fields).filter((f) => !SERVER_STAMPS.has(f) && !fields[f]!.meta.internal),
    };
  }
  const job = JOB_TABLES[table];
  if (!job) throw new Error(`Events are declared on ${table}, which is neither a resource's table nor a job table`);
  return { columns: new Map(Object.entries(job)), replicated: false, changeable: [] };
}

const quoted = (value: string) => `'${value.replace(/'/g, "''")}'`;

function columnOf(source: SourceTable, table: string, field: string): Column {
  const column = source.columns.get(field);
  if (!column) throw new Error(`An event rule names ${field}, which ${table} does not have`);
  return column;
}

/** SQL true when the row `alias` is in the state (null counts as false: callers coalesce). */
function conditionSql(table: string, source: SourceTable, alias: string, condition: EventCondition): string {
  if ('all' in condition) return `(${condition.all.map((c) => conditionSql(table, source, alias, c)).join(' and ')})`;
  if ('set' in condition) return `${alias}.${columnOf(source, table, condition.set).column} is not null`;
  if ('equals' in condition) {
    const value = typeof condition.value === 'boolean' ? String(condition.value) : quoted(condition.value);
    return `${alias}.${columnOf(source, table, condition.equals).column} = ${value}`;
  }
  if ('deleted' in condition) {
    if (!source.replicated) throw new Error(`${table} has no tombstones: an event rule cannot ask whether its rows are deleted`);
    return `${alias}._deleted`;
  }
  if (table !== 'stock_levels') throw new Error('lowStock is a condition of stock levels only');
  return lowStockSql(`${alias}.quantity`, `(select i.reorder_point from inventory_items i where i.org_id = ${alias}.org_id and i.id = ${alias}.item_id)`);
}

/** SQL true when the rule matches a row changed this way (`n` the new row, `o` the old, `ch.changes` what changed). */
function matchSql(table: string, source: SourceTable, rule: EventRule, change: RowChange): string {
  if (rule.enters) {
    const now = `coalesce(${conditionSql(table, source, 'n', rule.enters)}, false)`;
    return change === 'insert' ? now : `(${now} and not coalesce(${conditionSql(table, source, 'o', rule.enters)}, false))`;
  }
  if (change === 'update' && rule.changes) return 'cardinality(ch.changes) > 0';
  return 'true';
}

/** The event's data: the record's id, the declared fields, and what changed. */
function dataSql(table: string, source: SourceTable, rule: EventRule, change: RowChange): string {
  const value = (field: string) => {
    const { column, timestamp } = columnOf(source, table, field);
    return timestamp ? `to_char(n.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `n.${column}`;
  };
  const pairs = [`'id', ${value(rule.id ?? 'id')}`, ...(rule.data ?? []).map((f) => `${quoted(f)}, ${value(f)}`)];
  if (rule.changes && change === 'update') pairs.push(`'changes', coalesce(to_jsonb(ch.changes), '[]'::jsonb)`);
  return `jsonb_build_object(${pairs.join(', ')})`;
}

/** `changes`: the names of the fields whose values differ between the old and new row. */
function changesSql(source: SourceTable): string {
  const terms = source.changeable.map((f) => {
    const { column } = source.columns.get(f)!;
    return `case when n.${column} is distinct from o.${column} then ${quoted(f)} end`;
  });
  if (source.replicated) terms.push(`case when n._deleted is distinct from o._deleted then 'deleted' end`);
  return `cross join lateral (select array_remove(array[${terms.join(', ')}]::text[], null) as changes) ch`;
}

/** The changed rows that make an event, each with its type and data. */
function candidatesSql(source: EventSource, table: SourceTable, change: RowChange, rules: readonly EventRule[]): string {
  const joined = change === 'update' ? ' join old_rows o on o.org_id = n.org_id and o.id = n.id' : '';
  const changes = change === 'update' && rules.some((r) => r.changes) ? `\n      ${changesSql(table)}` : '';
  const types = rules.map((r) => `when ${matchSql(source.table, table, r, change)} then ${quoted(r.type)}`).join('\n                                           ');
  const data = rules.map((r) => `when ${quoted(r.type)} then ${dataSql(source.table, table, r, change)}`).join('\n                ');
  return `select n.org_id, t.type, case t.type ${data} end as data
      from new_rows n${joined}${changes}
      cross join lateral (select case ${types} end as type) t
     where t.type is not null`;
}

function triggerFunction(source: EventSource, change: RowChange): string | null {
  const rules = source.rules.filter((r) => r.on.includes(change));
  if (!rules.length) return null;
  const table = sourceTable(source.table);
  const candidates = candidatesSql(source, table, change, rules);
  // A replicated table's rows took the organization's lock in the change-feed trigger already.
  const lock = table.replicated
    ? ''
    : `
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || x.org_id, 0))
     from (select distinct c.org_id from (${candidates}) c order by 1) x;`;
  const name = `events_on_${change}_${source.table}`;
  const transition = change === 'update' ? 'referencing old table as old_rows new table as new_rows' : 'referencing new table as new_rows';
  return `
create or replace function ${name}() returns trigger language plpgsql as $fn$
declare
  v_orgs text[];
begin${lock}
  with made as (
    insert into events (org_id, seq, type, occurred_at, data)
    select c.org_id, nextval('change_seq'), c.type, clock_timestamp(), c.data
      from (${candidates}) c
    returning org_id)
  select array_agg(distinct org_id) into v_orgs from made;
  if v_orgs is not null then
    perform pg_notify('pool_events', o.org_id) from unnest(v_orgs) o(org_id)
     where exists (select 1 from webhook_endpoints w where w.org_id = o.org_id and w.enabled);
  end if;
  return null;
end $fn$;
create trigger ${source.table}_events_${change} after ${change} on ${source.table} ${transition} for each statement execute function ${name}();`;
}

/** Drops every event trigger and function installed before (by any version of the rules). */
export const DROP_EVENT_TRIGGERS = `
do $drop$
declare
  r record;
begin
  for r in select t.tgname, c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid
            where not t.tgisinternal and t.tgname ~ '_events_(insert|update)$' loop
    execute format('drop trigger %I on %I', r.tgname, r.relname);
  end loop;
  for r in select p.oid::regprocedure as fn from pg_proc p where p.proname ~ '^events_on_(insert|update)_' loop
    execute format('drop function %s', r.fn);
  end loop;
end $drop$;`;

/** Every event trigger of the declaration, after the old ones are dropped. */
export function eventSql(sources: readonly EventSource[] = EVENT_SOURCES): string {
  return [DROP_EVENT_TRIGGERS, ...sources.flatMap((s) => (['insert', 'update'] as const).map((c) => triggerFunction(s, c)).filter((sql): sql is string => sql !== null))].join('\n');
}
