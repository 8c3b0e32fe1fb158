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
  /** A band's first page: the device's feed head of each band collection, read before the band (shared/sync/pull.ts). */
  heads?: Record<string, number>;
}

/** The answer's body, `{"documents":[...],"checkpoint":{...}}`, in three parts to write in order. */
export function pullResponseParts(result: PullResult): Buffer[] {
  const heads = result.heads ? `,"heads":${JSON.stringify(result.heads)}` : '';
  return [Buffer.from('{"documents":'), result.documents, Buffer.from(`,"checkpoint":${JSON.stringify(result.checkpoint)}${heads}}`)];
}

export async function pull(
  ctx: OperationContext,
  name: string,
  raw: { checkpoint?: unknown; limit?: unknown; from?: unknown; to?: unknown; heldFrom?: unknown; heldTo?: unknown; heldAt?: unknown },
): Promise<PullResult> {
  const collection = syncCollection(name);
  const { checkpoint, limit, from, to, held } = parseInput(PullQuery, {
    checkpoint: raw.checkpoint ?? undefined,
    limit: raw.limit ?? undefined,
    from: raw.from ?? undefined,
    to: raw.to ?? undefined,
    heldFrom: raw.heldFrom ?? undefined,
    heldTo: raw.heldTo ?? undefined,
    heldAt: raw.heldAt ?? undefined,
  });
  const feed = deviceFeed(ctx.viewer, collection);
  if (from !== undefined && to !== undefined) {
    if (!Object.hasOwn(BAND_COLLECTIONS, name)) throw errors.badInput(`${name} has no priority band: pull it without from and to`);
    // Read before the band, so every row at or before them was read by the band as it is now.
    const heads = checkpoint === 0 ? await bandHeads(ctx) : undefined;
    // A band's page continues the band, never the feed: it moves no checkpoint of the device's.
    const page = await feed.band(ctx.db, checkpoint, limit, { from, to });
    return { documents: page.documents, count: page.count, checkpoint: { seq: page.lastSeq ?? checkpoint }, heads };
  }
  const page = await feed.page(ctx.db, checkpoint, limit, held);
  const last = page.lastSeq ?? checkpoint;
  // A page that reached the end of the feed has seen everything up to its head.
  return { documents: page.documents, count: page.count, checkpoint: { seq: page.count < limit ? Math.max(last, page.head) : last } };
}

/** The device's feed head of each collection a band has (shared/sync/priorities.ts). */
async function bandHeads(ctx: OperationContext): Promise<Record<string, number>> {
  const names = Object.keys(BAND_COLLECTIONS);
  const heads = await Promise.all(names.map((name) => deviceFeed(ctx.viewer, syncCollection(name)).head(ctx.db)));
  return Object.fromEntries(names.map((name, i) => [name, heads[i]!]));
}
