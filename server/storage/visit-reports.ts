import type { Queryable } from './db.js';

/**
 * The visit reports the trigger of migration 0015 queues (one row per visit), as the report worker
 * and the office see them.
 */
export type ReportStatus = 'WAITING' | 'QUEUED' | 'SKIPPED';

export interface VisitReportRow {
  orgId: string;
  serviceId: string;
  status: ReportStatus;
  round: number;
  /** The office's channels on a resend; null: the customer's preference. */
  channels: ('EMAIL' | 'TEXT')[] | null;
  /** Asked for by the office (a resend): sent even where the organization has reports off. */
  requested: boolean;
  createdAt: string;
  changedAt: string;
  queuedAt: string | null;
  outcome: string | null;
}

const COLUMNS = `org_id as "orgId", service_id as "serviceId", status, round, channels, requested,
  created_at as "createdAt", changed_at as "changedAt", queued_at as "queuedAt", outcome`;

/**
 * Locks up to `limit` reports that have settled (no write to their visit for `delaySeconds`), in
 * every organization, skipping those another worker holds. Call inside a transaction.
 */
export async function claimSettledReports(tx: Queryable, delaySeconds: number, limit: number): Promise<VisitReportRow[]> {
  const { rows } = await tx.query<VisitReportRow>(
    `select ${COLUMNS} from visit_reports
      where status = 'WAITING' and changed_at <= now() - make_interval(secs => $1)
      order by changed_at limit $2 for update skip locked`,
    [delaySeconds, limit],
  );
  return rows;
}

export async function finishReport(tx: Queryable, orgId: string, serviceId: string, status: Exclude<ReportStatus, 'WAITING'>, outcome: string): Promise<void> {
  await tx.query(
    `update visit_reports set status = $3, outcome = $4, queued_at = case when $3 = 'QUEUED' then now() end
      where org_id = $1 and service_id = $2`,
    [orgId, serviceId, status, outcome],
  );
}

/**
 * Queues the visit's report again, due at once (an edit to the visit still makes it settle), as a
 * new round: one more message per channel, whatever earlier rounds sent.
 */
export async function requestReport(tx: Queryable, orgId: string, serviceId: string, channels: string[] | null): Promise<VisitReportRow> {
  const { rows } = await tx.query<VisitReportRow>(
    `insert into visit_reports (org_id, service_id, status, channels, requested, changed_at)
     values ($1, $2, 'WAITING', $3, true, 'epoch')
     on conflict (org_id, service_id) do update
       set status = 'WAITING', channels = excluded.channels, requested = true, changed_at = 'epoch', outcome = null,
           round = visit_reports.round + case when visit_reports.status = 'WAITING' then 0 else 1 end
     returning ${COLUMNS}`,
    [orgId, serviceId, channels],
  );
  return rows[0]!;
}

export async function reportOf(q: Queryable, orgId: string, serviceId: string): Promise<VisitReportRow | null> {
  const { rows } = await q.query<VisitReportRow>(`select ${COLUMNS} from visit_reports where org_id = $1 and service_id = $2`, [orgId, serviceId]);
  return rows[0] ?? null;
}
