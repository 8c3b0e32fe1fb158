import { PullQuery, technicianVisitWindow } from '../../../shared/index.js';
import { readFeedPage, type FeedScope } from '../../storage/change-feed.js';
import type { OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { syncCollection, type SyncCollection } from './collections.js';

/**
 * Pull: the documents of a collection changed after a checkpoint, oldest change first, with the
 * checkpoint to continue from. The checkpoint is `{seq}`: the change-feed position of the last
 * document delivered (0 or absent for a first sync).
 */
export interface Checkpoint {
  seq: number;
}

/**
 * A pull's answer. The documents arrive from the database as JSON (a JSON array, in UTF-8 bytes)
 * and go to the client as they are: `pullResponseParts` wraps them into `{documents, checkpoint}`
 * without copying them again.
 */
export interface PullResult {
  documents: Buffer;
  /** Documents in `documents`. */
  count: number;
  checkpoint: Checkpoint;
}

/** The answer's body, `{"documents":[...],"checkpoint":{...}}`, in three parts to write in order. */
export function pullResponseParts(result: PullResult): Buffer[] {
  return [Buffer.from('{"documents":'), result.documents, Buffer.from(`,"checkpoint":${JSON.stringify(result.checkpoint)}}`)];
}

export interface SyncSettings {
  /** Days of past visits a technician's device holds (future visits always). */
  serviceWindowDays: number;
}

export async function pull(
  ctx: OperationContext,
  settings: SyncSettings,
  name: string,
  raw: { checkpoint?: unknown; limit?: unknown },
): Promise<PullResult> {
  const collection = syncCollection(name);
  const { checkpoint, limit } = parseInput(PullQuery, { checkpoint: raw.checkpoint ?? undefined, limit: raw.limit ?? undefined });
  const page = await readFeedPage(ctx.db, collection.table, ctx.viewer.orgId, checkpoint, limit, scopeOf(ctx, settings, collection));
  const last = page.lastSeq ?? checkpoint;
  // A page that reached the end of the feed has seen everything up to the head, rows a
  // technician's window leaves out included, so the checkpoint moves past them.
  return { documents: page.documents, count: page.count, checkpoint: { seq: page.count < limit ? Math.max(last, page.head) : last } };
}

/** Technicians sync a window of visits (shared/sync/rules.ts): the last N days and everything ahead. */
export function scopeOf(ctx: OperationContext, settings: SyncSettings, collection: SyncCollection): FeedScope | undefined {
  if (collection.name !== technicianVisitWindow.collection || ctx.viewer.role !== 'TECHNICIAN') return undefined;
  return (bind) => technicianVisitWindow.sql('t', bind(settings.serviceWindowDays));
}

