import type { Queryable } from './db.js';

/** Links to report pages: only the token's hash is stored (see operations/reports/links.ts). */
export interface ReportLinkRow {
  orgId: string;
  id: string;
  serviceId: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

const COLUMNS = `org_id as "orgId", id, service_id as "serviceId", created_at as "createdAt", expires_at as "expiresAt", revoked_at as "revokedAt"`;

export async function insertReportLink(q: Queryable, orgId: string, link: { id: string; serviceId: string; tokenHash: string; days: number }): Promise<void> {
  await q.query(
    `insert into report_links (org_id, id, service_id, token_hash, expires_at) values ($1, $2, $3, $4, now() + make_interval(days => $5))`,
    [orgId, link.id, link.serviceId, link.tokenHash, link.days],
  );
}

/** The link a token hash names while it is neither expired nor revoked. */
export async function liveReportLink(q: Queryable, orgId: string, tokenHash: string): Promise<ReportLinkRow | null> {
  const { rows } = await q.query<ReportLinkRow>(
    `select ${COLUMNS} from report_links where org_id = $1 and token_hash = $2 and revoked_at is null and expires_at > now()`,
    [orgId, tokenHash],
  );
  return rows[0] ?? null;
}

/** Revokes every live link to the visit's report; returns how many there were. */
export async function revokeReportLinks(q: Queryable, orgId: string, serviceId: string): Promise<number> {
  const { rowCount } = await q.query(
    `update report_links set revoked_at = now() where org_id = $1 and service_id = $2 and revoked_at is null and expires_at > now()`,
    [orgId, serviceId],
  );
  return rowCount;
}

export async function reportLinksOf(q: Queryable, orgId: string, serviceId: string): Promise<ReportLinkRow[]> {
  const { rows } = await q.query<ReportLinkRow>(`select ${COLUMNS} from report_links where org_id = $1 and service_id = $2 order by created_at, id`, [orgId, serviceId]);
  return rows;
}
