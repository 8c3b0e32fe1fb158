-- Receipts of applied sync changes. A device names every change it pushes (a random id, kept
-- until the push is answered); a push that carries an id already here was applied before and
-- its answer was lost, so it is answered again and changes nothing. Receipts are pruned after
-- SYNC_RECEIPT_DAYS (a device offline longer than that with an unanswered push is merged as if
-- the change were new).
create table sync_receipts (
  org_id text not null references organizations (id),
  change_id text not null,
  created_at timestamptz not null default now(),
  primary key (org_id, change_id)
);
create index sync_receipts_by_time on sync_receipts (created_at);

-- The same rejected document pushed again (a retry) is kept once.
create index sync_quarantine_by_document on sync_quarantine (org_id, collection, document_id);
