import type { Queryable } from './db.js';

/** An organization's webhook endpoints (migration 0028), as the API shows them: never the secrets. */
export interface WebhookEndpointRow {
  id: string;
  orgId: string;
  url: string;
  description: string | null;
  /** Null: every event type. */
  eventTypes: string[] | null;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  /** When the secret before the last rotation stops signing (null: none signs beside the current one). */
  previousSecretUntil: string | null;
  /** Deliveries waiting for an attempt or a retry. */
  pendingDeliveries: number;
  /** Deliveries whose retries ran out in the last 30 days. */
  failedDeliveries: number;
  createdAt: string;
  updatedAt: string;
}

export interface NewEndpoint {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[] | null;
  secret: string;
  createdBy: string;
}

export type EndpointPatch = Partial<Pick<WebhookEndpointRow, 'url' | 'description' | 'eventTypes'>>;

const COLUMNS = `w.id, w.org_id as "orgId", w.url, w.description, w.event_types as "eventTypes", w.enabled,
  w.disabled_at as "disabledAt", w.disabled_reason as "disabledReason", w.failing_since as "failingSince",
  w.last_success_at as "lastSuccessAt", w.last_failure_at as "lastFailureAt",
  case when w.previous_secret_until > now() then w.previous_secret_until end as "previousSecretUntil",
  (select count(*) from webhook_deliveries d where d.org_id = w.org_id and d.endpoint_id = w.id and d.status = 'PENDING')::int as "pendingDeliveries",
  (select count(*) from webhook_deliveries d where d.org_id = w.org_id and d.endpoint_id = w.id and d.status = 'FAILED')::int as "failedDeliveries",
  w.created_at as "createdAt", w.updated_at as "updatedAt"`;

/**
 * Adds an endpoint. It receives the events committed after it: its fan-out starts at the
 * organization's newest event this snapshot sees (any event not yet committed has a higher seq).
 */
export async function insertEndpoint(tx: Queryable, orgId: string, e: NewEndpoint): Promise<WebhookEndpointRow> {
  await tx.query(
    `insert into webhook_endpoints (org_id, id, url, description, event_types, secret, created_by, fanned_seq)
     values ($1, $2, $3, $4, $5::text[], $6, $7, (select coalesce(max(seq), 0) from events where org_id = $1))`,
    [orgId, e.id, e.url, e.description, e.eventTypes, e.secret, e.createdBy],
  );
  return (await findEndpoint(tx, orgId, e.id))!;
}

export async function findEndpoint(q: Queryable, orgId: string, id: string): Promise<WebhookEndpointRow | null> {
  const { rows } = await q.query<WebhookEndpointRow>(`select ${COLUMNS} from webhook_endpoints w where w.org_id = $1 and w.id = $2`, [orgId, id]);
  return rows[0] ?? null;
}

/** Oldest first. */
export async function listEndpoints(q: Queryable, orgId: string): Promise<WebhookEndpointRow[]> {
  const { rows } = await q.query<WebhookEndpointRow>(`select ${COLUMNS} from webhook_endpoints w where w.org_id = $1 order by w.created_at, w.id`, [orgId]);
  return rows;
}

export async function countEndpoints(q: Queryable, orgId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>('select count(*)::int as n from webhook_endpoints where org_id = $1', [orgId]);
  return rows[0]!.n;
}

/** Changes the given fields; false when there is no such endpoint. */
export async function updateEndpoint(tx: Queryable, orgId: string, id: string, patch: EndpointPatch): Promise<boolean> {
  const sets: string[] = [];
  const params: unknown[] = [orgId, id];
  const set = (column: string, value: unknown, cast = '') => sets.push(`${column} = $${params.push(value)}${cast}`);
  if (patch.url !== undefined) set('url', patch.url);
  if (patch.description !== undefined) set('description', patch.description);
  if (patch.eventTypes !== undefined) set('event_types', patch.eventTypes, '::text[]');
  const { rowCount } = await tx.query(`update webhook_endpoints set ${[...sets, 'updated_at = clock_timestamp()'].join(', ')} where org_id = $1 and id = $2`, params);
  return rowCount > 0;
}

/**
 * Enables a disabled endpoint: it is healthy again and receives the events committed from now on
 * (what it missed while disabled is in the event feed, and can be redelivered one by one).
 * False when there is no such endpoint.
 */
export async function enableEndpoint(tx: Queryable, orgId: string, id: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `update webhook_endpoints set enabled = true, disabled_at = null, disabled_reason = null, failing_since = null, updated_at = clock_timestamp(),
            fanned_seq = greatest(fanned_seq, (select coalesce(max(seq), 0) from events where org_id = $1))
      where org_id = $1 and id = $2 and not enabled`,
    [orgId, id],
  );
  return rowCount > 0;
}

/**
 * Disables an endpoint, and fails its pending deliveries (nothing more is sent to it). Returns
 * the endpoint when this call disabled it, null when it was disabled already or does not exist,
 * so a notice is sent once.
 */
export async function disableEndpoint(tx: Queryable, orgId: string, id: string, reason: string): Promise<WebhookEndpointRow | null> {
  const { rowCount } = await tx.query(
    `update webhook_endpoints set enabled = false, disabled_at = clock_timestamp(), disabled_reason = $3, updated_at = clock_timestamp()
      where org_id = $1 and id = $2 and enabled`,
    [orgId, id, reason],
  );
  if (!rowCount) return null;
  await tx.query(`update webhook_deliveries set status = 'FAILED', finished_at = clock_timestamp() where org_id = $1 and endpoint_id = $2 and status = 'PENDING'`, [orgId, id]);
  return findEndpoint(tx, orgId, id);
}

/**
 * A new signing secret; the current one keeps signing beside it for `overlapSeconds` (receivers
 * move to the new one without missing a delivery). False when there is no such endpoint.
 */
export async function rotateEndpointSecret(tx: Queryable, orgId: string, id: string, secret: string, overlapSeconds: number): Promise<boolean> {
  const { rowCount } = await tx.query(
    `update webhook_endpoints set previous_secret = secret, previous_secret_until = now() + make_interval(secs => $4),
            secret = $3, updated_at = clock_timestamp()
      where org_id = $1 and id = $2`,
    [orgId, id, secret, overlapSeconds],
  );
  return rowCount > 0;
}

/** Deletes an endpoint with its deliveries and their log; returns it as it was, or null. */
export async function deleteEndpoint(tx: Queryable, orgId: string, id: string): Promise<WebhookEndpointRow | null> {
  const endpoint = await findEndpoint(tx, orgId, id);
  if (!endpoint) return null;
  await tx.query('delete from webhook_endpoints where org_id = $1 and id = $2', [orgId, id]);
  return endpoint;
}

/** Where the organization's notices go: its own email, else its ADMINs' addresses. */
export async function noticeRecipients(q: Queryable, orgId: string): Promise<{ name: string; emails: string[] }> {
  const { rows } = await q.query<{ name: string; email: string | null; admins: string[] }>(
    `select o.name, o.email,
            array(select u.email from users u where u.org_id = o.id and u.role = 'ADMIN' and u.email is not null order by u.created_at) as admins
       from organizations o where o.id = $1`,
    [orgId],
  );
  const row = rows[0];
  if (!row) return { name: '', emails: [] };
  return { name: row.name, emails: row.email ? [row.email] : [...new Set(row.admins)] };
}
