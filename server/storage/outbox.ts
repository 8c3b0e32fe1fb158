import type { Queryable } from './db.js';
import { readPage, type PageRows, type PageWindow, type SortKey } from './lists/keyset.js';
import { Params } from './lists/params.js';

/** Messages to customers produced by bulk operations, and their delivery state. */
export interface OutboxMessage {
  id: string;
  operationId: string;
  channel: 'EMAIL' | 'SMS';
  customerId: string;
  recipient: string;
  subject: string | null;
  body: string;
  status: 'PENDING' | 'SENT' | 'STORED' | 'FAILED';
  error: string | null;
  createdAt: string;
  sentAt: string | null;
}

const COLUMNS = `id, operation_id as "operationId", channel, customer_id as "customerId", recipient, subject, body, status,
  error, created_at as "createdAt", sent_at as "sentAt"`;

/** Adds messages; one per operation, customer and channel, so a repeated chunk adds none. */
export async function addMessages(tx: Queryable, orgId: string, messages: Omit<OutboxMessage, 'createdAt' | 'sentAt' | 'error'>[]): Promise<void> {
  if (!messages.length) return;
  await tx.query(
    `insert into outbox (org_id, id, operation_id, channel, customer_id, recipient, subject, body, status)
     select $1, m.id, m.operation_id, m.channel, m.customer_id, m.recipient, m.subject, m.body, m.status
       from jsonb_to_recordset($2::jsonb) as m(id text, operation_id text, channel text, customer_id text,
            recipient text, subject text, body text, status text)
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
          status: m.status,
        })),
      ),
    ],
  );
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
