import { z } from 'zod';
import { idValidator } from '../../shared/index.js';
import { outboxPage, OUTBOX_KEYS, type OutboxMessage } from '../storage/outgoing-messages.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from './context.js';
import { parseInput } from './input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from './pagination.js';

/** The outbox of bulk emails and texts, newest first (ADMIN, OFFICE, API). */
const Filter = z.strictObject({ channel: z.enum(['EMAIL', 'SMS']).nullish(), operationId: idValidator().nullish() });

export async function listOutbox(ctx: OperationContext, args: PageArgs & { channel?: unknown; operationId?: unknown }): Promise<Connection<OutboxMessage>> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read the outbox');
  const filter = parseInput(Filter, { channel: args.channel ?? null, operationId: args.operationId ?? null });
  const tag = listTag(ctx.viewer.orgId, 'outbox', '');
  const window = pageWindow({ first: args.first, after: args.after }, tag, OUTBOX_KEYS.length);
  return toConnection(await outboxPage(ctx.db, ctx.viewer.orgId, filter, window), window, tag);
}
