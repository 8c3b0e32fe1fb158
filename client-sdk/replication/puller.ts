import { BAND_COLLECTIONS, bandRange, isDeparture, type HeldBand } from '../../shared/index.js';
import type { BandRange } from './http.js';
import { yieldToEventLoop } from './yield.js';
import { pendingKey } from './pending-changes.js';
import { pullAhead } from './pull-ahead.js';
import type { RxCollection } from 'rxdb';
import { insertStates, readStored, stateOf, writeStates, type DocState, type Stored } from './replica-store.js';
import type { ChangeBatch } from './stream.js';
import type { SyncContext } from './sync-context.js';

/**
 * Pull and live batches. Server states are written over every document without local changes;
 * a document with local changes keeps them (its push will be merged by the server and answered
 * with the result, which is newer than anything skipped here). The checkpoint moves only after
 * the page's documents are written, so a client stopped in between pulls the page again.
 */
export async function pullToEnd(ctx: SyncContext, name: string): Promise<void> {
  // A first sync's full pull leaves out what the bands brought that has not changed since.
  const held = ctx.firstSync?.held;
  const fetchPage = pullAhead((checkpoint, limit) => ctx.remote.pull(name, checkpoint?.seq ?? 0, limit, held && { held }));
  for (;;) {
    const page = await fetchPage({ seq: await ctx.checkpoints.get(name) }, ctx.pullBatchSize);
    await applyServerStates(ctx, name, page.documents);
    await ctx.checkpoints.set(name, page.checkpoint.seq);
    if (page.documents.length < ctx.pullBatchSize) return;
  }
}

/**
 * A first sync's priority bands (shared/sync/priorities.ts), those not yet on the device, in
 * order: each band's visits and their customers, before any collection is pulled from the
 * start. A band moves no checkpoint; the full pull that follows brings everything, at states no
 * older than the band's (a document the band wrote unchanged is not written again).
 */
export async function pullPriorityBands(ctx: SyncContext, collections: readonly string[], running: () => boolean): Promise<void> {
  const first = ctx.firstSync;
  if (!first) return;
  const names = Object.keys(BAND_COLLECTIONS).filter((name) => collections.includes(name));
  for (const band of first.pending()) {
    const range = bandRange(band, new Date());
    // A band's collections at once: the server reads each from the device's feed on its own (a
    // visit's customer is found by the visit on the server, not on the device), so one round trip.
    const heads = await Promise.all(names.map((name) => pullBand(ctx, name, range)));
    if (!running()) return;
    await first.bandReady(band, heldBand(range, heads));
  }
}

/** Pulls a band of one collection to its end; answers the feed heads its first page was read after. */
async function pullBand(ctx: SyncContext, name: string, range: BandRange): Promise<Record<string, number> | undefined> {
  // With a page read ahead, as the feed is pulled: a band's pages are in position order too, so a
  // page read early is as good as one read later (a row changed since moves to a later position).
  const fetchPage = pullAhead((checkpoint, limit) => ctx.remote.pull(name, checkpoint?.seq ?? 0, limit, { band: range }));
  let heads: Record<string, number> | undefined;
  for (let seq = 0; ; ) {
    const page = await fetchPage({ seq }, ctx.pullBatchSize);
    if (seq === 0) heads = page.heads;
    await applyServerStates(ctx, name, page.documents);
    seq = page.checkpoint.seq;
    if (page.documents.length < ctx.pullBatchSize) return heads;
  }
}

/**
 * The band as the full pull names it: for each collection, the lowest head any of the band's first
 * pages was read after, so every row at or before it was unchanged while all of the band was read
 * (a customer is left out only if the visit that names it was unchanged too). None if a page told
 * none (a server from before heads): the full pull then leaves nothing out.
 */
function heldBand(range: BandRange, heads: (Record<string, number> | undefined)[]): HeldBand | undefined {
  if (heads.some((h) => !h)) return undefined;
  const at: Record<string, number> = {};
  for (const h of heads as Record<string, number>[]) for (const [name, seq] of Object.entries(h)) at[name] = Math.min(at[name] ?? seq, seq);
  return { ...range, at };
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
  const pieces = ctx.writePieces;
  for (let at = 0; at < documents.length; ) {
    if (at > 0) await yieldToEventLoop();
    const piece = documents.slice(at, at + pieces.current);
    const start = performance.now();
    await applyChunk(ctx, name, piece);
    pieces.took(performance.now() - start, piece.length);
    at += piece.length;
  }
}

/** Writes server states under the write lock, each piece on its own: a local change made between two pieces is seen by the next. */
async function applyChunk(ctx: SyncContext, name: string, documents: DocState[]): Promise<void> {
  await ctx.lock.run(async () => {
    const changedHere = await ctx.pending.among(name, documents.map((d) => pendingKey(name, d.id)));
    const clean = changedHere.size ? documents.filter((d) => !changedHere.has(pendingKey(name, d.id))) : documents;
    const collection = ctx.collection(name);
    const filling = ctx.firstSync !== undefined && !ctx.firstSync.done;
    const { stored, unwritten } = filling ? await insertNewFirst(collection, clean) : { stored: await readStored(collection, clean.map((d) => d.id)), unwritten: clean };
    const departing = unwritten.filter((d) => isDeparture(d) && stored.get(d.id)?._deleted === false).map((d) => stateOf(stored.get(d.id)!, name));
    await writeStates(collection, unwritten.filter((d) => !olderThan(d, stored.get(d.id)) && !heldAlready(d, stored.get(d.id))), stored);
    for (const d of documents) if (isDeparture(d) && changedHere.has(pendingKey(name, d.id))) ctx.departures?.postpone(name, d.id);
    for (const { _deleted, ...held } of departing) ctx.departures?.applied(name, held.id, held);
  });
}

/**
 * A replica being filled (a first sync) writes the live states as new documents at once and reads
 * only the rest, tombstones and departures, which are written only over what it holds. Answers
 * what is stored of those read and of the live states it turned out to hold, and the states still
 * to write over it.
 */
async function insertNewFirst(collection: RxCollection, states: DocState[]): Promise<{ stored: Map<string, Stored>; unwritten: DocState[] }> {
  const live = states.filter((d) => d._deleted !== true);
  const gone = states.filter((d) => d._deleted === true);
  const stored = await readStored(collection, gone.map((d) => d.id));
  const held = await insertStates(collection, live);
  for (const [id, doc] of held) stored.set(id, doc);
  return { stored, unwritten: [...gone, ...live.filter((d) => held.has(d.id))] };
}

/**
 * Whether the replica holds this very state already: the same `updatedAt` (the server stamps every
 * write of a row with its own, increasing within the organization) and the same deletion. A band's
 * documents come again in the full pull that follows it, and a re-pull after a reconnect brings
 * back what the stream delivered; writing them again would cost the device's storage as much as
 * the first time. A departure is never such a state (it carries no time).
 */
function heldAlready(incoming: DocState, stored: Record<string, unknown> | undefined): boolean {
  return (
    stored !== undefined &&
    !isDeparture(incoming) &&
    typeof incoming.updatedAt === 'string' &&
    incoming.updatedAt === stored.updatedAt &&
    (incoming._deleted === true) === (stored._deleted === true)
  );
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
