-- Bulk operations: jobs worked in chunks by a worker loop in every server process, and the outbox
-- of the emails and texts they produce.

create table bulk_operations (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  kind text not null,
  status text not null check (status in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'PARTIAL')),
  -- The validated request, with explicit selections resolved to ids at start.
  payload jsonb not null,
  total integer not null default 0,
  processed integer not null default 0,
  succeeded integer not null default 0,
  failed integer not null default 0,
  skipped integer not null default 0,
  -- The first 100 per-item failures: [{index, id, code, message}].
  errors jsonb not null default '[]',
  result_key text,
  idempotency_key text,
  created_by text,
  started_at timestamptz,
  finished_at timestamptz,
  -- Which worker holds the job and when it last showed life; a silent holder loses it.
  claimed_by text,
  heartbeat_at timestamptz,
  cancel_requested boolean not null default false,
  primary key (org_id, id)
);
create unique index bulk_operations_idempotency on bulk_operations (org_id, idempotency_key) where idempotency_key is not null;
create index bulk_operations_claimable on bulk_operations (status, created_at) where status in ('QUEUED', 'RUNNING');
create index bulk_operations_by_org on bulk_operations (org_id, created_at, id);
create trigger bulk_operations_touch before insert or update on bulk_operations
  for each row execute function touch_updated_at();

-- Messages to customers. Written in the same transaction as the chunk that produced them (so a
-- resumed job never writes one twice), then delivered: SENT through SMTP or the SMS webhook when
-- configured, else kept here as STORED.
create table outbox (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  operation_id text not null,
  channel text not null check (channel in ('EMAIL', 'SMS')),
  customer_id text not null,
  recipient text not null,
  subject text,
  body text not null,
  status text not null check (status in ('PENDING', 'SENT', 'STORED', 'FAILED')),
  error text,
  sent_at timestamptz,
  primary key (org_id, id),
  unique (org_id, operation_id, customer_id, channel)
);
create index outbox_pending on outbox (org_id, operation_id) where status = 'PENDING';
create index outbox_by_time on outbox (org_id, created_at, id);
