-- Indexes behind every list and search of the GraphQL operations, and the per-organization
-- counters that number quotes. Sort keys here must match server/storage/sort-keys.ts exactly:
-- test/list-indexes.pg.test.ts checks with EXPLAIN that each main list uses its index.

create extension if not exists pg_trgm;

-- GIN indexes are built with fastupdate off: a pending list makes the planner price the index
-- above a table scan until VACUUM merges it, and embedded PGlite has no autovacuum to do so.
-- Writes pay a little more; every search stays on the index.

-- Search text of a customer: the fields the spec lists, lower-cased, plus the phone numbers as
-- bare digits so "5551234" finds "(555) 123-4". Declared immutable so an index can hold it.
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

-- The search text is stored (a generated column) rather than indexed as an expression: checking a
-- trigram match against stored text costs a comparison, recomputing it costs the function above.
alter table customers add column _search text generated always as (
  customer_search_doc(first_name, last_name, street_address, city, state, zip_code,
    phone_number, alternate_phone_number, tertiary_phone_number, fourth_phone_number)
) stored;
create index customers_search on customers using gin (_search gin_trgm_ops) with (fastupdate = off);

-- Search text of a visit: its own words (the customer's are searched through customers_search).
create function service_search_doc(reference text, notes text) returns text
language plpgsql immutable parallel safe as $$
begin
  return lower(coalesce(reference, '') || ' ' || coalesce(notes, ''));
end $$;

alter table services add column _search text generated always as (service_search_doc(reference, notes)) stored;
create index services_search on services using gin (_search gin_trgm_ops) with (fastupdate = off);

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
