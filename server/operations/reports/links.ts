import { createHash, randomBytes } from 'node:crypto';
import { errors } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { insertReportLink, liveReportLink, revokeReportLinks, type ReportLinkRow } from '../../storage/report-links.js';
import { services } from '../../storage/services.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { newId } from '../ids.js';

/**
 * Links that open a visit's report without signing in: `/reports/<token>` (the page) and
 * `/reports/<token>/photos/<id>` (its photos), for the customer who got the email or text. The
 * token is `<organization id>_<32 random bytes, base64url>`; only its SHA-256 is stored, so the
 * database alone opens no report. The organization makes the lookup routable, (org_id,
 * token_hash), one shard on a distributed store; it grants nothing (the hash covers it). A
 * link works for REPORT_LINK_DAYS (30 by default: long enough to open a report days later) unless
 * the office revokes the visit's links first, which withdraws the page and its photos at once.
 */
export const tokenHashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Stands in a composed report for its link until the message is sent: the outbox keeps the message
 * without any token, and each sending makes its own link (reports.ts). A private-use character, so
 * nothing a person typed is ever taken for it (report views drop it from what they show).
 */
export const REPORT_LINK = '\uE000';

/** The path of a report's page; the photos are under it. */
export const reportPath = (token: string) => `/reports/${token}`;

export async function issueReportLink(q: Queryable, orgId: string, serviceId: string, days: number): Promise<string> {
  const token = `${orgId}_${randomBytes(32).toString('base64url')}`;
  await insertReportLink(q, orgId, { id: newId(), serviceId, tokenHash: tokenHashOf(token), days });
  return token;
}

/** The visit a token opens, or null for a token never issued, expired or revoked. */
export async function openReportLink(q: Queryable, token: string): Promise<ReportLinkRow | null> {
  const orgId = /^([A-Za-z0-9._~-]+)_[A-Za-z0-9_-]{43}$/.exec(token)?.[1];
  if (!orgId) return null;
  return liveReportLink(q, orgId, tokenHashOf(token));
}

/** Withdraws every link to the visit's report (ADMIN, OFFICE, API); returns how many were live. */
export async function revokeVisitReportLinks(ctx: OperationContext, serviceId: string): Promise<number> {
  requireRole(ctx.viewer, OFFICE_ROLES, "revoke a visit report's links");
  if (!(await services.findById(ctx.db, ctx.viewer.orgId, serviceId))) throw errors.notFound('Service', serviceId);
  return revokeReportLinks(ctx.db, ctx.viewer.orgId, serviceId);
}
