-- What each technician's device holds (shared/sync/scopes.ts): one row per (technician, row ever
-- in their scope), kept by triggers that server/storage/scope-sql.ts generates from that
-- declaration and installs at start (create or replace, then a rebuild when the rules changed).
--
-- `present`: the row is in the technician's scope now. `seq` is the row's position in that
-- technician's feed of the collection, drawn from change_seq under the organization's feed lock
-- like every _seq, so within an organization it follows commit order. A change of a held row
-- moves its entry to the change's _seq; a row entering the scope gets a new position (a copy of
-- the row is delivered there, whatever its own _seq); a row leaving gets a new position with
-- present = false (a tombstone for that device only). Positions only ever move forward, so a
-- device paging through its feed can never miss an entry: whatever moves behind it reappears ahead.
create table scope_rows (
  org_id text not null references organizations (id),
  audience text not null,
  collection text not null,
  row_id text not null,
  seq bigint not null,
  present boolean not null,
  primary key (org_id, audience, collection, row_id)
);
-- A device's pull: its entries after its checkpoint, in order.
create index scope_rows_feed on scope_rows (org_id, audience, collection, seq);
-- The live fan-out: every technician's new entries of a collection, in order.
create index scope_rows_live on scope_rows (org_id, collection, seq);
-- The triggers: who holds a given row.
create index scope_rows_holders on scope_rows (org_id, collection, row_id);

-- The installed rules (a hash of the generated SQL and the window) and the window itself, read by
-- the triggers. One row.
create table scope_settings (
  id integer primary key default 1 check (id = 1),
  rules_hash text not null,
  window_days integer not null
);

-- Who created a visit or a customer (a technician holds what they created); set by the server.
alter table services add column created_by_id text;
alter table customers add column created_by_id text;
-- A truck: the technician whose devices hold this location's stock.
alter table inventory_locations add column technician_id text;

-- What the scope triggers look up: a location's stock and movements, an appointment's technician.
create index stock_levels_by_location on stock_levels (org_id, location_id);
create index stock_movements_by_location on stock_movements (org_id, location_id);
create index stock_movements_by_to_location on stock_movements (org_id, to_location_id) where to_location_id is not null;
