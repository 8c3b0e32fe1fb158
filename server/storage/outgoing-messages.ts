import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';

/**
 * Messages to customers produced by bulk operations and visit reports, notices to the
 * organization itself (a webhook endpoint disabled), and their delivery state.
 */
export interface OutboxMessage {
  id: string;
  orgId: string;
  /** The bulk operation, `visit-report:<visit>:<round>` for a visit's report, `notice:...` for a notice. */
  operationId: string;
  channel: 'EMAIL' | 'SMS';
  /** Null for a notice to the organization. */
  customerId: string | null;
  recipient: string;
  subject: string | null;
  /** The text, or an email's plain-text part. */
  body: string;
  /** An email's HTML part (visit reports). */
  html: string | null;
  /** The visit whose report this is. */
  serviceId: string | null;
  /** The invoice this email delivers (its PDF is made and attached when it is sent). */
  invoiceId: string | null;
  /** Copied to (an invoice's billingCCEmail). */
  cc: string | null;
  /** Shown as the sender's name (the organization's emailFromName); the address is EMAIL_FROM's. */
  senderName: string | null;
  replyTo: string | null;
  status: 'PENDING' | 'SENT' | 'STORED' | 'FAILED';
  error: string | null;
  attempts: number;
  createdAt: string;
  sentAt: string | null;
}

export type NewMessage = Omit<OutboxMessage, 'orgId' | 'createdAt' | 'sentAt' | 'error' | 'attempts' | 'html' | 'serviceId' | 'invoiceId' | 'cc' | 'senderName' | 'replyTo'> &
  Partial<Pick<OutboxMessage, 'html' | 'serviceId' | 'invoiceId' | 'cc' | 'senderName' | 'replyTo'>>;

const COLUMNS = `id, org_id as "orgId", operation_id as "operationId", channel, customer_id as "customerId", recipient, subject, body,
  html, service_id as "serviceId", invoice_id as "invoiceId", cc, sender_name as "senderName", reply_to as "replyTo", status, error, attempts,
  created_at as "createdAt", sent_at as "sentAt"`;

/** Adds messages; one per operation, customer and channel, so a repeated chunk adds none. */
export async function addMessages(tx: Queryable, orgId: string, messages: NewMessage[]): Promise<void> {
  await insertMessages(tx, orgId, messages);
}

/** addMessages, answering how many were new (a message already there for its operation, customer and channel is not). */
export async function insertMessages(tx: Queryable, orgId: string, messages: NewMessage[]): Promise<number> {
  if (!messages.length) return 0;
  const { rowCount } = await tx.query(
    `insert into outbox (org_id, id, operation_id, channel, customer_id, recipient, subject, body, html, service_id, invoice_id, cc, sender_name, reply_to, status)
     select $1, m.id, m.operation_id, m.channel, m.customer_id, m.recipient, m.subject, m.body, m.html, m.service_id, m.invoice_id, m.cc, m.sender_name, m.reply_to, m.status
       from jsonb_to_recordset($2::jsonb) as m(id text, operation_id text, channel text, customer_id text,
            recipient text, subject text, body text, html text, service_id text, invoice_id text, cc text, sender_name text, reply_to text, status text)
     on conflict (org_id, operation_id, customer_id, channel) do nothing`,
    [
      orgId,
      JSON.stringify(
        messages.map((m) => ({
          id: m.id,
          operation_id: m.operationId,
          channel: m.channel,
          customer_id: m.customerId,
          recipient: m.recipient,
          subject: m.subject,
          body: m.body,
          html: m.html ?? null,
          service_id: m.serviceId ?? null,
          invoice_id: m.invoiceId ?? null,
          cc: m.cc ?? null,
          sender_name: m.senderName ?? null,
          reply_to: m.replyTo ?? null,
          status: m.status,
        })),
      ),
    ],
  );
  return rowCount;
}

/**
 * Claims up to `limit` report messages due for a delivery attempt, in every organization: each
 * gets one more attempt and is left alone until `retryAfterSeconds(attempts)` has passed, so a
 * worker that dies mid-send leaves its messages to be tried again then (at least once), and two
 * workers never try one at the same time.
 */
export async function claimDueReportMessages(q: Queryable, limit: number, retryAfterSeconds: (attempts: number) => number): Promise<OutboxMessage[]> {
  const delays = Array.from({ length: 10 }, (_, i) => retryAfterSeconds(i + 1));
  const { rows } = await q.query<OutboxMessage>(
    `update outbox o set attempts = o.attempts + 1,
            next_attempt_at = now() + make_interval(secs => ($2::float8[])[least(o.attempts + 1, 10)])
      where (o.org_id, o.id) in (
        select org_id, id from outbox
         where status = 'PENDING' and service_id is not null and (next_attempt_at is null or next_attempt_at <= now())
         order by created_at, id limit $1 for update skip locked)
      returning ${COLUMNS}`,
    [limit, delays],
  );
  return rows;
}

/**
 * Claims up to `limit` notices to organizations due for a delivery attempt, in every organization,
 * as `claimDueReportMessages` claims report messages (at least once; never two workers at once).
 */
export async function claimDueNotices(q: Queryable, limit: number, retryAfterSeconds: (attempts: number) => number): Promise<OutboxMessage[]> {
  const delays = Array.from({ length: 10 }, (_, i) => retryAfterSeconds(i + 1));
  const { rows } = await q.query<OutboxMessage>(
    `update outbox o set attempts = o.attempts + 1,
            next_attempt_at = now() + make_interval(secs => ($2::float8[])[least(o.attempts + 1, 10)])
      where (o.org_id, o.id) in (
        select org_id, id from outbox
         where status = 'PENDING' and customer_id is null and (next_attempt_at is null or next_attempt_at <= now())
         order by next_attempt_at nulls first, id limit $1 for update skip locked)
      returning ${COLUMNS}`,
    [limit, delays],
  );
  return rows;
}

/**
 * Claims up to `limit` invoice emails due for a delivery attempt, in every organization, as
 * `claimDueReportMessages` claims report messages (at least once; never two workers at once).
 */
export async function claimDueInvoiceMessages(q: Queryable, limit: number, retryAfterSeconds: (attempts: number) => number): Promise<OutboxMessage[]> {
  const delays = Array.from({ length: 10 }, (_, i) => retryAfterSeconds(i + 1));
  const { rows } = await q.query<OutboxMessage>(
    `update outbox o set attempts = o.attempts + 1,
            next_attempt_at = now() + make_interval(secs => ($2::float8[])[least(o.attempts + 1, 10)])
      where (o.org_id, o.id) in (
        select org_id, id from outbox
         where status = 'PENDING' and invoice_id is not null and (next_attempt_at is null or next_attempt_at <= now())
         order by next_attempt_at nulls first, id limit $1 for update skip locked)
      returning ${COLUMNS}`,
    [limit, delays],
  );
  return rows;
}

/** The emails of an invoice, oldest first. */
export async function invoiceMessagesOf(q: Queryable, orgId: string, invoiceId: string): Promise<OutboxMessage[]> {
  const { rows } = await q.query<OutboxMessage>(`select ${COLUMNS} from outbox where org_id = $1 and invoice_id = $2 order by created_at, id`, [orgId, invoiceId]);
  return rows;
}

/** A message no sender is configured for: kept, as STORED, instead of tried again. */
export async function markStored(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(`update outbox set status = 'STORED' where org_id = $1 and id = $2 and status = 'PENDING'`, [orgId, id]);
}

/** markStored for several messages, of any organizations, in one statement. */
export async function markStoredMany(q: Queryable, messages: readonly MessageRef[]): Promise<void> {
  if (!messages.length) return;
  await q.query(
    `update outbox o set status = 'STORED' from unnest($1::text[], $2::text[]) as m(org_id, id)
      where o.org_id = m.org_id and o.id = m.id and o.status = 'PENDING'`,
    [messages.map((m) => m.orgId), messages.map((m) => m.id)],
  );
}

/** A message of some organization, as the marking of several at once names it. */
export type MessageRef = Pick<OutboxMessage, 'orgId' | 'id'>;

/** Messages the mail server accepted, of any organizations: SENT in one statement. */
export async function markMessagesSent(q: Queryable, messages: readonly MessageRef[]): Promise<void> {
  if (!messages.length) return;
  await q.query(
    `update outbox o set status = 'SENT', error = null, sent_at = clock_timestamp()
       from unnest($1::text[], $2::text[]) as m(org_id, id)
      where o.org_id = m.org_id and o.id = m.id`,
    [messages.map((m) => m.orgId), messages.map((m) => m.id)],
  );
}

/** A delivery attempt that failed: FAILED for good when `final`, else kept PENDING for the next. */
export async function markAttemptFailed(q: Queryable, orgId: string, id: string, error: string, final: boolean): Promise<void> {
  await q.query(`update outbox set error = $3, status = case when $4 then 'FAILED' else status end where org_id = $1 and id = $2`, [orgId, id, error, final]);
}

/** The messages of a visit's reports, oldest first. */
export async function reportMessagesOf(q: Queryable, orgId: string, serviceId: string): Promise<OutboxMessage[]> {
  const { rows } = await q.query<OutboxMessage>(`select ${COLUMNS} from outbox where org_id = $1 and service_id = $2 order by created_at, id`, [orgId, serviceId]);
  return rows;
}

export async function pendingMessages(q: Queryable, orgId: string, operationId: string, limit: number): Promise<OutboxMessage[]> {
  const { rows } = await q.query<OutboxMessage>(
    `select ${COLUMNS} from outbox where org_id = $1 and operation_id = $2 and status = 'PENDING' order by created_at, id limit $3`,
    [orgId, operationId, limit],
  );
  return rows;
}

export async function markMessage(q: Queryable, orgId: string, id: string, status: 'SENT' | 'FAILED', error: string | null): Promise<void> {
  await q.query(
    `update outbox set status = $3, error = $4, sent_at = case when $3 = 'SENT' then clock_timestamp() end where org_id = $1 and id = $2`,
    [orgId, id, status, error],
  );
}

const SORT: readonly SortKey[] = [
  { expr: 'o.created_at', type: 'timestamptz', desc: true },
  { expr: 'o.id', type: 'text', desc: true },
];
export const OUTBOX_KEYS = SORT;

export function outboxPage(
  q: Queryable,
  orgId: string,
  filter: { channel?: string | null; operationId?: string | null },
  window: PageWindow,
): Promise<PageRows<OutboxMessage>> {
  const p = new Params([orgId]);
  const where = ['o.org_id = $1'];
  if (filter.channel) where.push(`o.channel = ${p.add(filter.channel)}`);
  if (filter.operationId) where.push(`o.operation_id = ${p.add(filter.operationId)}`);
  return readPage(q, { select: COLUMNS, from: 'outbox o', where, params: p, keys: SORT, window, toRecord: (r) => r as unknown as OutboxMessage });
}
