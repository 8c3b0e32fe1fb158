import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';

/**
 * Deliveries of events to webhook endpoints (migration 0028): made from the event table by a
 * fan-out, claimed for an attempt before it is made, and recorded after.
 */

/** One attempt to make: the event, where it goes and what signs it. */
export interface Attempt {
  orgId: string;
  endpointId: string;
  eventSeq: number;
  eventId: string;
  eventType: string;
  occurredAt: string;
  data: Record<string, unknown>;
  /** 1 for the first attempt of the delivery, 2 for its first retry... */
  attempt: number;
  url: string;
  /** The endpoint's secret, then the one before its last rotation while that still signs. */
  secrets: string[];
}

/** What an attempt came to. */
export interface AttemptOutcome {
  id: string;
  attemptedAt: string;
  durationMs: number;
  /** The HTTP status answered; null when nothing was (refused, unreachable, too slow). */
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
  /** Seconds until the next attempt; null when there is none (retries exhausted, or the endpoint is gone). */
  retryInSeconds: number | null;
}

interface AttemptRow extends Omit<Attempt, 'secrets'> {
  secret: string;
  previousSecret: string | null;
}

const toAttempt = ({ secret, previousSecret, ...row }: AttemptRow): Attempt => ({ ...row, secrets: previousSecret ? [secret, previousSecret] : [secret] });

/** What a fan-out did: the first attempts it claimed, and whether it left work behind. */
export interface FanOut {
  attempts: Attempt[];
  /** Deliveries it made without claiming them (no free slot): due now, for a claim. */
  unclaimed: number;
  /** Some endpoint had more events than one batch. */
  more: boolean;
  /** Some enabled endpoint was locked by another process's fan-out or record (look again shortly). */
  skipped: boolean;
}

/**
 * Makes the deliveries of the organization's new events: for each enabled endpoint this process
 * can lock (FOR UPDATE SKIP LOCKED: one process fans out an endpoint at a time), up to `batch`
 * events after its `fanned_seq`, in seq order; a delivery for each event of a type it subscribes
 * to, the first `claim` of them with their first attempt already claimed by this process
 * (`leaseSeconds` to make it), the others due now for any process to claim; the
 * endpoint's `fanned_seq` moves to the last event read. One statement, so all of it or none.
 * Events are read in seq order above a position every earlier event is committed below, so none
 * is ever skipped.
 */
export async function fanOut(q: Queryable, orgId: string, { batch, claim, leaseSeconds }: { batch: number; claim: number; leaseSeconds: number }): Promise<FanOut> {
  const { rows } = await q.query<AttemptRow & { scanned: number; skipped: number; unclaimed: number }>(
    `with eps as (
       select w.id, w.fanned_seq, w.event_types, w.url, w.secret,
              case when w.previous_secret_until > now() then w.previous_secret end as previous_secret
         from webhook_endpoints w where w.org_id = $1 and w.enabled
          for update skip locked
     ), batch as (
       select eps.id as endpoint_id, ev.seq, 'evt_' || ev.seq as event_id, ev.type, ev.occurred_at, ev.data,
              (eps.event_types is null or cardinality(eps.event_types) = 0 or ev.type = any(eps.event_types)) as wanted
         from eps cross join lateral (
           select e.seq, e.type, e.occurred_at, e.data from events e
            where e.org_id = $1 and e.seq > eps.fanned_seq order by e.seq limit $2) ev
     ), advanced as (
       update webhook_endpoints w set fanned_seq = b.top
         from (select endpoint_id, max(seq) as top from batch group by endpoint_id) b
        where w.org_id = $1 and w.id = b.endpoint_id
     ), made as (
       insert into webhook_deliveries (org_id, endpoint_id, event_seq, event_id, status, attempts, next_attempt_at)
       select $1, b.endpoint_id, b.seq, b.event_id, 'PENDING', case when b.rank <= $4 then 1 else 0 end,
              case when b.rank <= $4 then now() + make_interval(secs => $3) else now() end
         from (select b.*, row_number() over (order by b.seq, b.endpoint_id) as rank from batch b where b.wanted) b
       on conflict do nothing
       returning endpoint_id, event_seq, attempts
     )
     select s.scanned, s.skipped, s.unclaimed, a.*
       from (select coalesce((select max(c) from (select count(*) as c from batch group by endpoint_id) x), 0)::int as scanned,
                    ((select count(*) from webhook_endpoints w where w.org_id = $1 and w.enabled) - (select count(*) from eps))::int as skipped,
                    (select count(*) from made where attempts = 0)::int as unclaimed) s
       left join (
         select $1::text as "orgId", m.endpoint_id as "endpointId", b.seq as "eventSeq", b.event_id as "eventId", b.type as "eventType",
                b.occurred_at as "occurredAt", b.data, 1 as attempt, eps.url, eps.secret, eps.previous_secret as "previousSecret"
           from made m join batch b on b.endpoint_id = m.endpoint_id and b.seq = m.event_seq join eps on eps.id = m.endpoint_id
          where m.attempts = 1
       ) a on true
      order by a."eventSeq"`,
    [orgId, batch, leaseSeconds, claim],
  );
  const head = rows[0];
  return {
    attempts: rows.filter((r) => r.endpointId !== null).map(toAttempt),
    unclaimed: head?.unclaimed ?? 0,
    more: (head?.scanned ?? 0) >= batch,
    skipped: (head?.skipped ?? 0) > 0,
  };
}

/** Organizations with an enabled endpoint behind their newest event (a missed wake-up, a restart). */
export async function organizationsBehind(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ orgId: string }>(
    `select distinct w.org_id as "orgId" from webhook_endpoints w
      where w.enabled and exists (select 1 from events e where e.org_id = w.org_id and e.seq > w.fanned_seq)`,
  );
  return rows.map((r) => r.orgId);
}

/**
 * Claims up to `limit` deliveries whose next attempt is due, in every organization: each gets
 * one more attempt and is left alone for `leaseSeconds` (the attempt's deadline and a margin), so
 * a process that dies mid-attempt leaves it to be tried again then, and two processes never make
 * the same attempt.
 */
export async function claimDueAttempts(q: Queryable, limit: number, leaseSeconds: number): Promise<Attempt[]> {
  const { rows } = await q.query<AttemptRow>(
    `with due as (
       select d.org_id, d.endpoint_id, d.event_seq from webhook_deliveries d
        where d.status = 'PENDING' and d.next_attempt_at <= now()
          and exists (select 1 from webhook_endpoints w where w.org_id = d.org_id and w.id = d.endpoint_id and w.enabled)
        order by d.next_attempt_at limit $1 for update of d skip locked
     ), claimed as (
       update webhook_deliveries d set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
         from due where d.org_id = due.org_id and d.endpoint_id = due.endpoint_id and d.event_seq = due.event_seq
       returning d.org_id, d.endpoint_id, d.event_seq, d.event_id, d.attempts
     )
     select c.org_id as "orgId", c.endpoint_id as "endpointId", c.event_seq as "eventSeq", c.event_id as "eventId",
            coalesce(e.type, '') as "eventType", e.occurred_at as "occurredAt", e.data, c.attempts as attempt, w.url, w.secret,
            case when w.previous_secret_until > now() then w.previous_secret end as "previousSecret"
       from claimed c
       join webhook_endpoints w on w.org_id = c.org_id and w.id = c.endpoint_id
       left join events e on e.org_id = c.org_id and e.seq = c.event_seq
      order by c.event_seq`,
    [limit, leaseSeconds],
  );
  return rows.map(toAttempt);
}

/**
 * Records attempts in one statement: each in the log; its delivery deleted when it succeeded,
 * moved to its next attempt when it failed with retries left, FAILED when none are left; and each
 * endpoint's health (last success, last failure, failing since). A record whose delivery was
 * claimed again meanwhile (this process outlived its lease) changes only the log.
 *
 * Locks are taken endpoint first, then deliveries, as the fan-out and disableEndpoint take them:
 * the statement's own update runs before the data-modifying WITH parts it does not read (which
 * PostgreSQL runs to completion after it), so no two of them wait on each other in a circle.
 */
export async function recordAttempts(q: Queryable, done: readonly { attempt: Attempt; outcome: AttemptOutcome }[]): Promise<void> {
  if (!done.length) return;
  const rows = done.map(({ attempt: a, outcome: o }) => ({
    org_id: a.orgId,
    endpoint_id: a.endpointId,
    event_seq: a.eventSeq,
    event_id: a.eventId,
    event_type: a.eventType,
    attempt: a.attempt,
    id: o.id,
    attempted_at: o.attemptedAt,
    duration_ms: Math.round(o.durationMs),
    status_code: o.statusCode,
    error: o.error?.slice(0, 1000) ?? null,
    succeeded: o.succeeded,
    retry_in: o.retryInSeconds,
  }));
  await q.query(
    `with r as (
       select * from jsonb_to_recordset($1::jsonb) as r(org_id text, endpoint_id text, event_seq bigint, event_id text, event_type text,
              attempt integer, id text, attempted_at timestamptz, duration_ms integer, status_code integer, error text, succeeded boolean, retry_in float8)
     ), logged as (
       insert into webhook_attempts (org_id, id, endpoint_id, event_seq, event_id, event_type, attempt, attempted_at, duration_ms, status_code, error, succeeded)
       select org_id, id, endpoint_id, event_seq, event_id, event_type, attempt, attempted_at, duration_ms, status_code, error, succeeded from r
       on conflict do nothing
     ), delivered as (
       delete from webhook_deliveries d using r
        where r.succeeded and d.org_id = r.org_id and d.endpoint_id = r.endpoint_id and d.event_seq = r.event_seq and d.attempts = r.attempt
     ), retried as (
       update webhook_deliveries d
          set next_attempt_at = case when r.retry_in is null then d.next_attempt_at else now() + make_interval(secs => r.retry_in) end,
              status = case when r.retry_in is null then 'FAILED' else 'PENDING' end,
              finished_at = case when r.retry_in is null then clock_timestamp() end
         from r
        where not r.succeeded and d.org_id = r.org_id and d.endpoint_id = r.endpoint_id and d.event_seq = r.event_seq
          and d.attempts = r.attempt and d.status = 'PENDING'
     ), health as (
       select org_id, endpoint_id, max(attempted_at) filter (where succeeded) as success, max(attempted_at) filter (where not succeeded) as failure,
              min(attempted_at) filter (where not succeeded) as first_failure
         from r group by org_id, endpoint_id
     )
     update webhook_endpoints w
        set last_success_at = coalesce(h.success, w.last_success_at),
            last_failure_at = coalesce(h.failure, w.last_failure_at),
            failing_since = case when h.success is not null and (h.failure is null or h.success > h.failure) then null
                                 else coalesce(w.failing_since, h.first_failure) end
       from health h
      where w.org_id = h.org_id and w.id = h.endpoint_id
        -- A healthy endpoint's last success is kept to the second or so: its row is not rewritten by every batch.
        and (h.failure is not null or w.failing_since is not null or w.last_success_at is null or w.last_success_at < h.success - interval '2 seconds')`,
    [JSON.stringify(rows)],
  );
}

/** Endpoints among these that have failed since before `before`, still enabled: to be disabled. */
export async function endpointsFailingSince(q: Queryable, keys: readonly { orgId: string; endpointId: string }[], before: Date): Promise<{ orgId: string; endpointId: string; failingSince: string }[]> {
  if (!keys.length) return [];
  const { rows } = await q.query<{ orgId: string; endpointId: string; failingSince: string }>(
    `select w.org_id as "orgId", w.id as "endpointId", w.failing_since as "failingSince"
       from webhook_endpoints w join jsonb_to_recordset($1::jsonb) as k(org_id text, endpoint_id text) on w.org_id = k.org_id and w.id = k.endpoint_id
      where w.enabled and w.failing_since < $2`,
    [JSON.stringify(keys.map((k) => ({ org_id: k.orgId, endpoint_id: k.endpointId }))), before.toISOString()],
  );
  return rows;
}

/**
 * Queues the event for the endpoint again, now, as a new round of attempts (the same
 * `webhook-id`: receivers that already have it drop it). Returns the delivery's next attempt time.
 */
export async function queueRedelivery(tx: Queryable, orgId: string, endpointId: string, event: { seq: number; id: string }): Promise<void> {
  await tx.query(
    `insert into webhook_deliveries (org_id, endpoint_id, event_seq, event_id, status, attempts, next_attempt_at)
     values ($1, $2, $3, $4, 'PENDING', 0, now())
     on conflict (org_id, endpoint_id, event_seq) do update set status = 'PENDING', attempts = 0, next_attempt_at = now(), finished_at = null`,
    [orgId, endpointId, event.seq, event.id],
  );
  await tx.query(`select pg_notify('pool_events', $1)`, [`${orgId}${REDELIVERY_NOTICE}`]);
}

/** Appended to the organization in a pool_events notification that a redelivery is due now (a claim, not a fan-out). */
export const REDELIVERY_NOTICE = ' redeliver';

/** One attempt as the delivery log shows it. */
export interface AttemptLogRow {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
}

const LOG_KEYS: readonly SortKey[] = [
  { expr: 'a.attempted_at', type: 'timestamptz', desc: true },
  { expr: 'a.id', type: 'text', desc: true },
];
export const ATTEMPT_LOG_KEYS = LOG_KEYS;

/** The organization's attempts, newest first, of one endpoint or event when given. */
export function attemptLogPage(q: Queryable, orgId: string, filter: { endpointId?: string | null; eventId?: string | null }, window: PageWindow): Promise<PageRows<AttemptLogRow>> {
  const p = new Params([orgId]);
  const where = ['a.org_id = $1'];
  if (filter.endpointId) where.push(`a.endpoint_id = ${p.add(filter.endpointId)}`);
  if (filter.eventId) where.push(`a.event_id = ${p.add(filter.eventId)}`);
  return readPage(q, {
    select: `a.id, a.endpoint_id as "endpointId", a.event_id as "eventId", a.event_type as "eventType", a.attempt, a.attempted_at as "attemptedAt",
             a.duration_ms as "durationMs", a.status_code as "statusCode", a.error, a.succeeded`,
    from: 'webhook_attempts a',
    where,
    params: p,
    keys: LOG_KEYS,
    window,
    toRecord: (r) => r as unknown as AttemptLogRow,
  });
}

/** Vacuums the delivery queue (its dead rows and their entries in the due index); not in a transaction. */
export async function vacuumDeliveryQueue(q: Queryable): Promise<void> {
  await q.query('vacuum webhook_deliveries');
}

/** Deletes attempts, and failed deliveries, older than `days` days, in every organization; returns how many rows. */
export async function pruneWebhookLog(q: Queryable, days: number): Promise<number> {
  const attempts = await q.query(`delete from webhook_attempts where attempted_at < now() - make_interval(days => $1)`, [days]);
  const failed = await q.query(`delete from webhook_deliveries where status = 'FAILED' and created_at < now() - make_interval(days => $1)`, [days]);
  return attempts.rowCount + failed.rowCount;
}
