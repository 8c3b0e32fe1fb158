-- Indexes behind every list and search of the GraphQL operations, and the per-organization
-- counters that number quotes. Sort keys here must match server/storage/sort-keys.ts exactly:
-- test/list-indexes.pg.test.ts checks with EXPLAIN that each main list uses its index.

create extension if not exists pg_trgm;

-- GIN indexes are built with fastupdate off: a pending list makes the planner price the index
-- above a table scan until VACUUM merges it, and embedded PGlite has no autovacuum to do so.
-- Writes pay a little more; every search stays on the index.

-- Search text of a customer: the fields the spec lists, lower-cased, plus the phone numbers as
-- bare digits so "5551234" finds "(555) 123-4".
create function customer_search_doc(
  first_name text, last_name text, street_address text, city text, state text, zip_code text,
  phone1 text, phone2 text, phone3 text, phone4 text
) returns text language plpgsql immutable parallel safe as $$
begin
  return lower(
    coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' ||
    coalesce(street_address, '') || ' ' || coalesce(city, '') || ' ' || coalesce(state, '') || ' ' ||
    coalesce(zip_code, '') || ' ' ||
    coalesce(phone1, '') || ' ' || coalesce(phone2, '') || ' ' ||
    coalesce(phone3, '') || ' ' || coalesce(phone4, '') || ' ' ||
    regexp_replace(coalesce(phone1, ''), '[^0-9]', '', 'g') || ' ' ||
    regexp_replace(coalesce(phone2, ''), '[^0-9]', '', 'g') || ' ' ||
    regexp_replace(coalesce(phone3, ''), '[^0-9]', '', 'g') || ' ' ||
    regexp_replace(coalesce(phone4, ''), '[^0-9]', '', 'g')
  );
end $$;

-- Search text lives in its own narrow tables, written by triggers only when a searched field
-- changes. Every other write (a visit's readings, a customer's billing flag, the change-feed
-- stamp) then leaves the trigram index alone: kept on the main table, each such update re-inserted
-- ~100 trigram entries (1.5 s instead of 0.2 s for 2,000 updates, measured here).
create table customer_search (
  org_id text not null,
  id text not null,
  doc text not null,
  -- The default order's keys and liveness, so a search page is cut from this table alone and
  -- only its 50 rows are read from customers.
  last_key text not null,
  first_key text not null,
  live boolean not null,
  primary key (org_id, id)
);
create index customer_search_trgm on customer_search using gin (doc gin_trgm_ops) with (fastupdate = off);

create function customer_search_sync() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and (new.first_name, new.last_name, new.street_address, new.city, new.state, new.zip_code,
      new.phone_number, new.alternate_phone_number, new.tertiary_phone_number, new.fourth_phone_number, new._deleted)
      is not distinct from (old.first_name, old.last_name, old.street_address, old.city, old.state, old.zip_code,
      old.phone_number, old.alternate_phone_number, old.tertiary_phone_number, old.fourth_phone_number, old._deleted) then
    return null;
  end if;
  insert into customer_search (org_id, id, doc, last_key, first_key, live)
  values (new.org_id, new.id, customer_search_doc(new.first_name, new.last_name, new.street_address, new.city,
    new.state, new.zip_code, new.phone_number, new.alternate_phone_number, new.tertiary_phone_number,
    new.fourth_phone_number), lower(new.last_name), lower(coalesce(new.first_name, '')), not new._deleted)
  on conflict (org_id, id) do update
    set doc = excluded.doc, last_key = excluded.last_key, first_key = excluded.first_key, live = excluded.live;
  return null;
end $$;

create trigger customers_search_sync after insert or update on customers
  for each row execute function customer_search_sync();

-- Search text of a visit: its own words (its customer's are searched through customer_search).
create function service_search_doc(reference text, notes text) returns text
language plpgsql immutable parallel safe as $$
begin
  return lower(coalesce(reference, '') || ' ' || coalesce(notes, ''));
end $$;

create table service_search (
  org_id text not null,
  id text not null,
  doc text not null,
  primary key (org_id, id)
);
create index service_search_trgm on service_search using gin (doc gin_trgm_ops) with (fastupdate = off);

create function service_search_sync() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and (new.reference, new.notes) is not distinct from (old.reference, old.notes) then
    return null;
  end if;
  insert into service_search (org_id, id, doc)
  values (new.org_id, new.id, service_search_doc(new.reference, new.notes))
  on conflict (org_id, id) do update set doc = excluded.doc;
  return null;
end $$;

create trigger services_search_sync after insert or update on services
  for each row execute function service_search_sync();

-- Customer sorts (keyset pagination: sort keys, then id).
create index customers_by_name on customers (org_id, lower(last_name), lower(coalesce(first_name, '')), id);
create index customers_by_city on customers (org_id, lower(coalesce(city, '')), id);
create index customers_by_created on customers (org_id, created_at, id);
create index customers_by_updated on customers (org_id, updated_at, id);
create index customers_by_since on customers (org_id, coalesce(customer_since_date, '-infinity'::date), id);
create index customers_tags on customers using gin (tags) with (fastupdate = off);

-- Visit sorts and the filters technicians and the office use most.
create index services_by_start on services (org_id, coalesce(start_time, '-infinity'::timestamptz), id);
create index services_by_created on services (org_id, created_at, id);
create index services_by_updated on services (org_id, updated_at, id);
create index services_by_technician on services
  (org_id, new_technician_id, coalesce(start_time, '-infinity'::timestamptz), id);
create index services_by_secondary_technician on services
  (org_id, new_secondary_technician_id, coalesce(start_time, '-infinity'::timestamptz), id);
create index services_by_customer on services
  (org_id, customer_id, coalesce(start_time, '-infinity'::timestamptz), id);

create index quotes_by_created on quotes (org_id, created_at, id);
create index quotes_by_status on quotes (org_id, status, created_at, id);
create index quotes_by_customer on quotes (org_id, customer_id, created_at, id);
create unique index quotes_number on quotes (org_id, number);

create index inventory_items_by_name on inventory_items (org_id, lower(name), id);
create unique index stock_levels_item_location on stock_levels (org_id, item_id, location_id);
create index stock_movements_by_item on stock_movements (org_id, item_id, created_at, id);

alter table customer_quoted_prices add column position integer not null default 0;
create index customer_quoted_prices_by_customer on customer_quoted_prices (org_id, customer_id);
create index appointments_by_customer on appointments (org_id, customer_id, start_time);

-- Per-organization counters (quote numbers). A number is drawn inside the transaction that uses
-- it and the counter only moves forward, so no number is ever given to two records.
create table org_counters (
  org_id text not null references organizations (id),
  name text not null,
  value bigint not null,
  primary key (org_id, name)
);
