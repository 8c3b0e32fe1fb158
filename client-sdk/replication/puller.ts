import { isDeparture } from '../../shared/index.js';
import { outboxKey } from './outbox.js';
import { pullAhead } from './pull-ahead.js';
import { readStored, stateOf, writeStates, type DocState } from './replica-store.js';
import type { ChangeBatch } from './stream.js';
import type { SyncContext } from './sync-context.js';

/**
 * Pull and live batches. Server states are written over every document without local changes;
 * a document with local changes keeps them (its push will be merged by the server and answered
 * with the result, which is newer than anything skipped here). The checkpoint moves only after
 * the page's documents are written, so a client stopped in between pulls the page again.
 */
export async function pullToEnd(ctx: SyncContext, name: string): Promise<void> {
  const fetchPage = pullAhead((checkpoint, limit) => ctx.remote.pull(name, checkpoint?.seq ?? 0, limit));
  for (;;) {
    const page = await fetchPage({ seq: await ctx.checkpoints.get(name) }, ctx.pullBatchSize);
    await applyServerStates(ctx, name, page.documents);
    await ctx.checkpoints.set(name, page.checkpoint.seq);
    if (page.documents.length < ctx.pullBatchSize) return;
  }
}

/**
 * A live batch continues the feed only if it starts at or before this client's checkpoint;
 * otherwise something came between (the client subscribed mid-write, or was offline) and the
 * answer is 'gap': pull. A batch wholly behind the checkpoint is old news.
 */
export async function applyLiveBatch(ctx: SyncContext, batch: ChangeBatch): Promise<'applied' | 'stale' | 'gap'> {
  const checkpoint = await ctx.checkpoints.get(batch.collection);
  if (batch.checkpoint.seq <= checkpoint) return 'stale';
  if (!batch.since || batch.since.seq > checkpoint) return 'gap';
  await applyServerStates(ctx, batch.collection, batch.documents);
  await ctx.checkpoints.set(batch.collection, batch.checkpoint.seq);
  return 'applied';
}

async function applyServerStates(ctx: SyncContext, name: string, documents: DocState[]): Promise<void> {
  if (!documents.length) return;
  await ctx.lock.run(async () => {
    const changedHere = await ctx.outbox.get(documents.map((d) => outboxKey(name, d.id)));
    const clean = changedHere.size ? documents.filter((d) => !changedHere.has(outboxKey(name, d.id))) : documents;
    const collection = ctx.collection(name);
    const stored = await readStored(collection, clean.map((d) => d.id));
    const departing = clean.filter((d) => isDeparture(d) && stored.get(d.id)?._deleted === false).map((d) => stateOf(stored.get(d.id)!));
    await writeStates(collection, clean.filter((d) => !olderThan(d, stored.get(d.id))), stored);
    for (const d of documents) if (isDeparture(d) && changedHere.has(outboxKey(name, d.id))) ctx.departures?.postpone(name, d.id);
    for (const { _deleted, ...held } of departing) ctx.departures?.applied(name, held.id, held);
  });
}

/**
 * Whether a server state is older than the one the replica holds: a page or live batch read
 * before a push was answered can arrive after the answer, and must not take the document back
 * (an edit made then would be based on the older state). The server stamps `updatedAt` after
 * taking the organization's change-feed lock, so within an organization it follows commit order.
 */
function olderThan(incoming: DocState, stored: Record<string, unknown> | undefined): boolean {
  const mine = stored?.updatedAt;
  return typeof mine === 'string' && typeof incoming.updatedAt === 'string' && incoming.updatedAt < mine;
}
