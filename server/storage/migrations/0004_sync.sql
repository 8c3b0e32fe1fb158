-- Sync: live notification of changes, the conflict log and the quarantine.

-- Every change-feed write also notifies 'pool_changes' with "<org_id> <table>". PostgreSQL delivers
-- notifications at commit, folds identical ones within a transaction (a 2,000-row push notifies
-- once per table), and every server process LISTENing sees them. The payload stays far below
-- NOTIFY's 8,000-byte limit; listeners read the rows themselves.
create or replace function change_feed_stamp() returns trigger language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('change-feed:' || new.org_id, 0));
  new._seq := nextval('change_seq');
  new.updated_at := clock_timestamp();
  if tg_op = 'INSERT' then
    new.created_at := new.updated_at;
  else
    new.created_at := old.created_at;
  end if;
  perform pg_notify('pool_changes', new.org_id || ' ' || tg_table_name);
  return new;
end $$;

-- A value a merge overwrote: which document, which field, what was kept and what was lost, why.
create table sync_conflicts (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  collection text not null,
  document_id text not null,
  field text not null,
  kept_value jsonb,
  lost_value jsonb,
  rule text not null,
  pushed_by text,
  primary key (org_id, id)
);
create index sync_conflicts_by_time on sync_conflicts (org_id, created_at, id);
create index sync_conflicts_by_document on sync_conflicts (org_id, collection, document_id, created_at);

-- A pushed document that could not be accepted and had no server state: kept, with the reason, so
-- nothing a technician typed is lost; the device was answered with a tombstone.
create table sync_quarantine (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  collection text not null,
  document_id text not null,
  document jsonb not null,
  reason text not null,
  pushed_by text,
  primary key (org_id, id)
);
create index sync_quarantine_by_time on sync_quarantine (org_id, created_at, id);
