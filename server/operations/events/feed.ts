import { z } from 'zod';
import { EVENT_RETENTION_DAYS, EVENT_TYPES, isEventType } from '../../../shared/index.js';
import { EVENT_KEYS, eventPage, type StoredEvent } from '../../storage/events.js';
import { ATTEMPT_LOG_KEYS, attemptLogPage, type AttemptLogRow } from '../../storage/webhook-deliveries.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from '../pagination.js';

/**
 * The event feed: the organization's events of the last 30 days in commit order (the change
 * sequence), so a receiver that pages with `after` never misses an event, however late a slow
 * transaction committed it; one that was down catches up from its last cursor, with or without
 * webhooks. And the webhook delivery log, newest first.
 */
const EventFilterInput = z
  .strictObject({
    types: z
      .array(z.string().max(100))
      .max(EVENT_TYPES.length)
      .nullish()
      .superRefine((types, ctx) => {
        const unknown = (types ?? []).filter((t) => !isEventType(t));
        if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown event type ${unknown.join(', ')}` });
      }),
  })
  .nullish();

export async function listEvents(ctx: OperationContext, args: PageArgs & { filter?: unknown }): Promise<Connection<StoredEvent>> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read the event feed');
  const filter = parseInput(EventFilterInput, args.filter) ?? {};
  // The cursor is a position in the organization's sequence: valid with any filter.
  const tag = listTag(ctx.viewer.orgId, 'events', '');
  const window = pageWindow({ first: args.first, after: args.after }, tag, EVENT_KEYS.length);
  return toConnection(await eventPage(ctx.db, ctx.viewer.orgId, filter, EVENT_RETENTION_DAYS, window), window, tag);
}

const DeliveryFilterInput = z.strictObject({ endpointId: z.string().max(200).nullish(), eventId: z.string().max(200).nullish() }).nullish();

/** Every attempt to deliver the organization's events, newest first (ADMIN). */
export async function listDeliveryAttempts(ctx: OperationContext, args: PageArgs & { filter?: unknown }): Promise<Connection<AttemptLogRow>> {
  requireRole(ctx.viewer, ['ADMIN'], 'see webhook deliveries');
  const filter = parseInput(DeliveryFilterInput, args.filter) ?? {};
  const tag = listTag(ctx.viewer.orgId, 'webhook-attempts', '');
  const window = pageWindow({ first: args.first, after: args.after }, tag, ATTEMPT_LOG_KEYS.length);
  return toConnection(await attemptLogPage(ctx.db, ctx.viewer.orgId, filter, window), window, tag);
}
