-- Visit reports: a completed visit's report goes to its customer once, by email and / or text,
-- through the outbox. Queued by a trigger on services, so every way a visit gets its end time
-- (GraphQL, a device's sync push, a bulk edit, an import) queues it, and nothing else does.

-- One row per visit whose report was queued. WAITING: completed, settling (every write to the
-- visit moves changed_at on, so a visit edited right after completing is reported once, as it
-- finally is); the worker composes it once changed_at is older than VISIT_REPORT_DELAY_SECONDS.
-- QUEUED: its messages are in the outbox. SKIPPED: nothing was sent (outcome says why).
create table visit_reports (
  org_id text not null references organizations (id),
  service_id text not null,
  status text not null check (status in ('WAITING', 'QUEUED', 'SKIPPED')),
  -- 1 for the report the completion queued; one more for each resend by the office.
  round integer not null default 1,
  -- The office's choice of channels on a resend; null: the customer's reportNotification.
  channels text[],
  -- Set by a resend: send even where the organization has reports off.
  requested boolean not null default false,
  created_at timestamptz not null default now(),
  changed_at timestamptz not null default clock_timestamp(),
  queued_at timestamptz,
  outcome text,
  primary key (org_id, service_id)
);
create index visit_reports_waiting on visit_reports (changed_at) where status = 'WAITING';

-- A visit reported as completed more than this before it reaches the server (history imported, a
-- demo organization's past) is not news to its customer: no report is queued for it.
create function visit_report_follow() returns trigger language plpgsql as $$
begin
  if new.end_time is null or new._deleted then
    -- No longer completed (or deleted) while settling: nothing to report.
    delete from visit_reports where org_id = new.org_id and service_id = new.id and status = 'WAITING';
    return null;
  end if;
  if tg_op = 'INSERT' or old.end_time is null or old._deleted then
    if new.end_time < now() - interval '7 days' then
      return null;
    end if;
    insert into visit_reports (org_id, service_id, status) values (new.org_id, new.id, 'WAITING')
      on conflict (org_id, service_id) do update set changed_at = clock_timestamp()
        where visit_reports.status = 'WAITING';
  else
    update visit_reports set changed_at = clock_timestamp()
     where org_id = new.org_id and service_id = new.id and status = 'WAITING';
  end if;
  return null;
end $$;

create trigger services_visit_report after insert or update on services
  for each row execute function visit_report_follow();

-- Links to a report's page (and its photos) that work without signing in: a random token of which
-- only the SHA-256 is kept, until expires_at or until the office revokes it. The token carries its
-- organization, so a link is found by (org_id, token_hash): one shard on a distributed store.
create table report_links (
  org_id text not null references organizations (id),
  id text not null,
  service_id text not null,
  token_hash text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  primary key (org_id, id)
);
create unique index report_links_by_token on report_links (org_id, token_hash);
create index report_links_by_service on report_links (org_id, service_id);

-- Report messages in the outbox: the email's HTML part beside its plain-text body, the visit whose
-- dateEmailed / dateTexted the sending sets, who it is from, and the delivery attempts (a message
-- claimed by a worker that then died is tried again once next_attempt_at has passed).
alter table outbox add column html text;
alter table outbox add column service_id text;
alter table outbox add column sender_name text;
alter table outbox add column reply_to text;
alter table outbox add column attempts integer not null default 0;
alter table outbox add column next_attempt_at timestamptz;
create index outbox_reports_due on outbox (next_attempt_at) where status = 'PENDING' and service_id is not null;

create index stock_movements_by_service on stock_movements (org_id, service_id) where service_id is not null;

-- Reports are on for every organization unless it turns them off.
update organizations set settings = settings || '{"sendVisitReports": true}'::jsonb
 where not (settings ? 'sendVisitReports');

-- reportNotification now takes EMAIL, TEXT, BOTH or NONE (null: BOTH). Earlier free text is read
-- as the value it spells, and dropped (null) when it spells none.
update customers set report_notification = case
    when upper(trim(report_notification)) in ('EMAIL', 'TEXT', 'BOTH', 'NONE') then upper(trim(report_notification))
  end
 where report_notification not in ('EMAIL', 'TEXT', 'BOTH', 'NONE');
