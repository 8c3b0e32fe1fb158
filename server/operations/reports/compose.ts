import { reportChannelsOf } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { addMessages, type NewMessage } from '../../storage/outgoing-messages.js';
import { finishReport, type VisitReportRow } from '../../storage/visit-reports.js';
import { newId } from '../ids.js';
import { recipientOf, type MessageChannel } from '../recipients.js';
import { REPORT_LINK } from './links.js';
import { reportEmailText, reportSms, subjectOf } from './report-text.js';
import { reportEmailHtml } from './report-view.js';
import { loadVisitReport } from './visit-report.js';

/**
 * Turns a settled report into its outbox messages, in the caller's transaction: one email and / or
 * one text as the customer's reportNotification (or the office's resend) asks, to the first email
 * address and the first phone enabled for texts, the same rule as bulk messages. The messages hold
 * REPORT_LINK where the link goes; each sending makes its own (see deliver.ts).
 */
export interface Composer {
  /** False for a channel with no sender configured: its message is kept as STORED. */
  canSend(channel: MessageChannel): boolean;
}

const LINKS = { page: REPORT_LINK, photo: (id: string) => `${REPORT_LINK}/photos/${encodeURIComponent(id)}`, logo: `${REPORT_LINK}/logo` };

export async function composeReport(tx: Queryable, report: VisitReportRow, composer: Composer): Promise<void> {
  const { orgId, serviceId } = report;
  const skip = (why: string) => finishReport(tx, orgId, serviceId, 'SKIPPED', why);
  const loaded = await loadVisitReport(tx, orgId, serviceId);
  if (!loaded) return skip('the visit has no customer or end time any more');
  const { view, customer, organization } = loaded;
  if (!report.requested && !organization.settings.sendVisitReports) return skip('visit reports are off for the organization');
  const channels = report.channels ?? reportChannelsOf(customer.reportNotification);
  if (!channels.length) return skip("the customer's reportNotification is NONE");

  const operationId = `visit-report:${serviceId}:${report.round}`;
  const common = { operationId, customerId: customer.id, serviceId, senderName: organization.settings.emailFromName ?? organization.name, replyTo: view.organization.email };
  const messages: NewMessage[] = [];
  const missing: string[] = [];
  for (const channel of channels) {
    const outbox: MessageChannel = channel === 'EMAIL' ? 'EMAIL' : 'SMS';
    const recipient = recipientOf(customer, outbox);
    if (!recipient) {
      missing.push(channel === 'EMAIL' ? 'no email address' : 'no phone enabled for texts');
      continue;
    }
    const status = composer.canSend(outbox) ? 'PENDING' : 'STORED';
    messages.push(
      outbox === 'EMAIL'
        ? { ...common, id: newId(), channel: outbox, recipient, status, subject: subjectOf(view), body: reportEmailText(view, LINKS), html: reportEmailHtml(view, LINKS) }
        : { ...common, id: newId(), channel: outbox, recipient, status, subject: null, body: reportSms(view, REPORT_LINK) },
    );
  }
  if (!messages.length) return skip(`the customer has ${missing.join(' and ')}`);
  await addMessages(tx, orgId, messages);
  const sent = messages.map((m) => `${m.channel === 'EMAIL' ? 'email' : 'text'} to ${m.recipient}`);
  await finishReport(tx, orgId, serviceId, 'QUEUED', [...sent, ...missing].join('; '));
}
