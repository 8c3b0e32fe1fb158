-- The start of a sync push in one round trip: the organization's feed lock, then which of the
-- change ids the push mentions were applied before, then the push's own change ids recorded as
-- applied (server/storage/sync-receipts.ts). One function, because one statement cannot do it: a
-- statement reads as of its start, before it waited for the lock, and would miss the receipts of a
-- push that committed meanwhile (a device's retry while its first attempt was still writing). A
-- volatile function's statements each read as of their own start, after the lock is held.
create function sync_push_start(p_org text, p_mentioned text[], p_applying text[]) returns setof text
language plpgsql volatile as $fn$
begin
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || p_org, 0));
  return query select r.change_id from sync_receipts r where r.org_id = p_org and r.change_id = any(p_mentioned);
  insert into sync_receipts (org_id, change_id) select p_org, unnest(p_applying) on conflict do nothing;
end $fn$;
