-- Events for integrators, and their delivery to webhook endpoints.

-- One row per event: written by statement triggers (server/storage/event-sql.ts, generated from
-- shared/events/declarations.ts and installed at start) in the transaction of the change it
-- describes. `seq` is drawn from change_seq under the organization's feed lock, as every _seq is,
-- so within an organization seq order is commit order: a reader paging by seq never skips an
-- event committed late. Kept 30 days (the hourly pruning deletes older ones by occurred_at, which
-- follows the order rows are written in: a BRIN index is enough and costs the writes nothing).
-- An event's id is `evt_<seq>` (seq is drawn from one sequence for every organization, so it is
-- unique), read from seq rather than stored: no second index to keep on every write. No foreign
-- key to organizations: it would be one more check per row on every write that makes events, for
-- an organization the writing row already names.
create table events (
  org_id text not null,
  seq bigint not null,
  type text not null,
  occurred_at timestamptz not null,
  data jsonb not null,
  primary key (org_id, seq)
);
create index events_by_time on events using brin (occurred_at);

-- The event rules installed (a hash of the generated SQL), so a start installs them only when
-- they changed. One row.
create table event_settings (
  id integer primary key check (id = 1),
  rules_hash text not null
);

-- Where an organization's events go. `secret` signs deliveries (whsec_ + base64); after a
-- rotation `previous_secret` signs beside it until `previous_secret_until`. `fanned_seq`: the
-- events up to this seq have their deliveries to this endpoint (a new endpoint starts at the
-- organization's newest event). A disabled endpoint gets no new deliveries.
create table webhook_endpoints (
  org_id text not null references organizations (id),
  id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  url text not null,
  description text,
  -- null: every event type.
  event_types text[],
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  enabled boolean not null default true,
  disabled_at timestamptz,
  disabled_reason text,
  -- The first failed attempt since the last success: an endpoint failing long enough is disabled.
  failing_since timestamptz,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  fanned_seq bigint not null,
  created_by text,
  primary key (org_id, id)
);
create index webhook_endpoints_enabled on webhook_endpoints (org_id) where enabled;

-- One row per event and endpoint still to deliver: PENDING until an attempt is answered with a
-- 2xx (the row is then deleted: the attempt log keeps what happened), FAILED once the retries
-- run out or the endpoint is disabled (kept 30 days, and redeliverable). An attempt is claimed
-- by moving next_attempt_at past its deadline before it is made: a process killed mid-attempt
-- leaves the delivery to be claimed again once that time passes (at least once), and two
-- processes never make the same attempt (FOR UPDATE SKIP LOCKED).
create table webhook_deliveries (
  org_id text not null,
  endpoint_id text not null,
  event_seq bigint not null,
  event_id text not null,
  status text not null check (status in ('PENDING', 'FAILED')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (org_id, endpoint_id, event_seq),
  foreign key (org_id, endpoint_id) references webhook_endpoints (org_id, id) on delete cascade
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING';
create index webhook_deliveries_age on webhook_deliveries using brin (created_at);
-- A queue: rows come and go as fast as events are delivered, and each leaves a dead entry in the
-- due index until a vacuum. PostgreSQL's autovacuum takes it after 10,000 dead rows, not after a
-- fifth of the table; the hourly pruning vacuums it too (PGlite runs no autovacuum).
alter table webhook_deliveries set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);

-- Every attempt, as the organization's delivery log shows it: when, the HTTP status (null when
-- nothing was answered), how long it took, and why it failed.
create table webhook_attempts (
  org_id text not null,
  id text not null,
  endpoint_id text not null,
  event_seq bigint not null,
  event_id text not null,
  event_type text not null,
  attempt integer not null,
  attempted_at timestamptz not null,
  duration_ms integer not null,
  status_code integer,
  error text,
  succeeded boolean not null,
  primary key (org_id, id),
  foreign key (org_id, endpoint_id) references webhook_endpoints (org_id, id) on delete cascade
);
create index webhook_attempts_by_time on webhook_attempts (org_id, attempted_at, id);
create index webhook_attempts_by_endpoint on webhook_attempts (org_id, endpoint_id, attempted_at, id);
create index webhook_attempts_age on webhook_attempts using brin (attempted_at);

-- Notices to the organization itself (an endpoint disabled): outbox messages with no customer,
-- sent by the webhook worker with retries as report messages are.
alter table outbox alter column customer_id drop not null;
create index outbox_notices_due on outbox (next_attempt_at) where status = 'PENDING' and customer_id is null;
