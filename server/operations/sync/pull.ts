import { BAND_COLLECTIONS, errors, PullQuery } from '../../../shared/index.js';
import type { OperationContext } from '../context.js';
import { parseInput } from '../input.js';
import { syncCollection } from './collections.js';
import { deviceFeed } from './device-feed.js';

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

export async function pull(
  ctx: OperationContext,
  name: string,
  raw: { checkpoint?: unknown; limit?: unknown; from?: unknown; to?: unknown },
): Promise<PullResult> {
  const collection = syncCollection(name);
  const { checkpoint, limit, from, to } = parseInput(PullQuery, { checkpoint: raw.checkpoint ?? undefined, limit: raw.limit ?? undefined, from: raw.from ?? undefined, to: raw.to ?? undefined });
  const feed = deviceFeed(ctx.viewer, collection);
  if (from !== undefined && to !== undefined) {
    if (!Object.hasOwn(BAND_COLLECTIONS, name)) throw errors.badInput(`${name} has no priority band: pull it without from and to`);
    // A band's page continues the band, never the feed: it moves no checkpoint of the device's.
    const page = await feed.band(ctx.db, checkpoint, limit, { from, to });
    return { documents: page.documents, count: page.count, checkpoint: { seq: page.lastSeq ?? checkpoint } };
  }
  const page = await feed.page(ctx.db, checkpoint, limit);
  const last = page.lastSeq ?? checkpoint;
  // A page that reached the end of the feed has seen everything up to its head.
  return { documents: page.documents, count: page.count, checkpoint: { seq: page.count < limit ? Math.max(last, page.head) : last } };
}


