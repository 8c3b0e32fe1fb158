import { z } from 'zod';
import { idValidator } from '../../../shared/index.js';
import { conflictPage, quarantinePage, SYNC_LOG_SORT, type ConflictEntry, type QuarantineEntry } from '../../storage/sync-log.js';
import { OFFICE_ROLES, requireRole, type OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { listTag, pageWindow, toConnection, type Connection, type PageArgs } from '../pagination.js';

/** The office's view of what sync merged away and what it could not accept. Newest first. */
const ConflictFilterInput = z
  .strictObject({
    collection: z.string().max(50).nullish(),
    documentId: idValidator().nullish(),
    field: z.string().max(100).nullish(),
    since: z.iso.datetime({ offset: true }).nullish(),
  })
  .nullish();

export async function listConflicts(ctx: OperationContext, args: PageArgs & { filter?: unknown }): Promise<Connection<ConflictEntry>> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read the sync conflict log');
  const filter = parseInput(ConflictFilterInput, args.filter) ?? {};
  const tag = listTag(ctx.viewer.orgId, 'sync-conflicts', '');
  const window = pageWindow(args, tag, SYNC_LOG_SORT.length);
  return toConnection(await conflictPage(ctx.db, ctx.viewer.orgId, filter, window), window, tag);
}

export async function listQuarantine(ctx: OperationContext, args: PageArgs & { collection?: unknown }): Promise<Connection<QuarantineEntry>> {
  requireRole(ctx.viewer, OFFICE_ROLES, 'read the sync quarantine');
  const collection = parseInput(z.string().max(50).nullish(), args.collection) ?? null;
  const tag = listTag(ctx.viewer.orgId, 'sync-quarantine', '');
  const window = pageWindow(args, tag, SYNC_LOG_SORT.length);
  return toConnection(await quarantinePage(ctx.db, ctx.viewer.orgId, collection, window), window, tag);
}
