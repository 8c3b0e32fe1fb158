-- Visit notes are long (hundreds of characters, so hundreds of trigrams each). With fastupdate
-- off (0002) every row's trigrams went into the GIN index one by one: a push of 1,000 edited
-- visits spent 400 ms of its 460 there. With fastupdate on, a statement appends the entries to the
-- index's pending list and they are merged once, in sorted order, when the statement ends
-- (160 ms + 35 ms for the same 1,000 rows on PostgreSQL here).
--
-- 0002's reason for fastupdate off still holds (a pending list left behind makes the planner
-- price the index above a table scan, and PGlite has no autovacuum to merge it), so nothing is
-- left behind: a statement-level trigger merges the list at the end of every statement that
-- wrote searched fields.
alter index service_search_trgm set (fastupdate = on);

-- security definer: merging a pending list is for the index's owner (who ran the migrations).
create function merge_service_search_pending() returns trigger
language plpgsql security definer set search_path = public, pg_catalog as $$
begin
  perform gin_clean_pending_list('service_search_trgm'::regclass);
  return null;
end $$;

create trigger services_search_merge after insert or update of reference, notes on services
  for each statement execute function merge_service_search_pending();
