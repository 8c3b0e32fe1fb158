import { z } from 'zod';
import { errors, reportChannelsOf } from '../../../shared/index.js';
import { customers } from '../../storage/customers.js';
import { reportMessagesOf, type OutboxMessage } from '../../storage/outgoing-messages.js';
import { reportLinksOf, type ReportLinkRow } from '../../storage/report-links.js';
import { services } from '../../storage/services.js';
import { reportOf, requestReport, type VisitReportRow } from '../../storage/visit-reports.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { recipientOf } from '../recipients.js';

/** A visit's report as the office sees it (ADMIN, OFFICE, API): its state, messages and links. */
export interface VisitReportState extends VisitReportRow {
  messages: OutboxMessage[];
  links: ReportLinkRow[];
}

async function stateOf(ctx: OperationContext, report: VisitReportRow): Promise<VisitReportState> {
  const [messages, links] = await Promise.all([reportMessagesOf(ctx.db, ctx.viewer.orgId, report.serviceId), reportLinksOf(ctx.db, ctx.viewer.orgId, report.serviceId)]);
  return { ...report, messages, links };
}

/** Null while the visit's report was never queued (not completed, or completed long ago). */
export async function visitReportOf(ctx: OperationContext, serviceId: string): Promise<VisitReportState | null> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read visit reports');
  const report = await reportOf(ctx.db, ctx.viewer.orgId, serviceId);
  return report && stateOf(ctx, report);
}

const ResendInput = z.strictObject({
  serviceId: z.string().min(1).max(128),
  channels: z.array(z.enum(['EMAIL', 'TEXT'])).min(1, 'must name at least one channel').max(2).nullish(),
});

/**
 * Sends a completed visit's report again (or for the first time), once per channel, as it is now:
 * by the channels named, else as the customer's reportNotification says. Sent even where the
 * organization has automatic reports off: the office asked for this one. Refused up front, naming
 * the reason, when there is nobody to send it to.
 */
export async function resendVisitReport(ctx: OperationContext, raw: unknown): Promise<VisitReportState> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'send visit reports');
  const input = parseInput(ResendInput, raw);
  const orgId = ctx.viewer.orgId;
  const report = await ctx.db.transaction(async (tx) => {
    const visit = await services.findById(tx, orgId, input.serviceId);
    if (!visit) throw errors.notFound('Service', input.serviceId);
    if (!visit.endTime) throw errors.badInput('serviceId: the visit is not completed (it has no end time), so it has no report yet', { fields: ['serviceId'] });
    const customer = visit.customerId ? await customers.findById(tx, orgId, visit.customerId) : null;
    if (!customer) throw errors.badInput('serviceId: the visit has no customer to send its report to', { fields: ['serviceId'] });
    const channels = input.channels ?? reportChannelsOf(customer.reportNotification);
    if (!channels.length) throw errors.badInput("channels: the customer's reportNotification is NONE; name the channels to send it anyway", { fields: ['channels'] });
    const reachable = channels.filter((c) => recipientOf(customer, c === 'EMAIL' ? 'EMAIL' : 'SMS'));
    if (!reachable.length) throw errors.badInput(`channels: the customer has no ${channels.map((c) => (c === 'EMAIL' ? 'email address' : 'phone enabled for texts')).join(' and no ')}`, { fields: ['channels'] });
    return requestReport(tx, orgId, input.serviceId, input.channels ?? null);
  });
  return stateOf(ctx, report);
}
