import type { Database } from '../../storage/db.js';
import { markMessage, type OutboxMessage } from '../../storage/outgoing-messages.js';
import { services } from '../../storage/services.js';
import { issueReportLink, REPORT_LINK, reportPath } from './links.js';

/**
 * Sending one report message: its link is made now (a fresh token; only its hash is kept) and put
 * where the message holds REPORT_LINK; once the sender accepted it, the message is SENT and the
 * visit's dateEmailed / dateTexted is set in one transaction, so devices receive the date by sync.
 */
export interface ReportSending {
  db: Database;
  /** Where links point (PUBLIC_URL, or the address this server listens on). */
  baseUrl: () => string;
  linkDays: number;
}

export async function withReportLink(sending: ReportSending, message: OutboxMessage): Promise<OutboxMessage> {
  const token = await issueReportLink(sending.db, message.orgId, message.serviceId!, sending.linkDays);
  const url = `${sending.baseUrl()}${reportPath(token)}`;
  return { ...message, body: message.body.replaceAll(REPORT_LINK, url), html: message.html?.replaceAll(REPORT_LINK, url) ?? null };
}

export async function recordReportSent(db: Database, message: OutboxMessage): Promise<void> {
  const stamp = message.channel === 'EMAIL' ? { dateEmailed: new Date().toISOString() } : { dateTexted: new Date().toISOString() };
  await db.transaction(async (tx) => {
    await markMessage(tx, message.orgId, message.id, 'SENT', null);
    await services.update(tx, message.orgId, message.serviceId!, stamp);
  });
}
