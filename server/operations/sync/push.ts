import { errors, isAppError, PushCheckpoint, withNullsLeftOut } from '../../../shared/index.js';
import { lockDocuments, setDeleted } from '../../storage/table-feed.js';
import type { Queryable } from '../../storage/db.js';
import { inSavepoint } from '../../storage/savepoints.js';
import { leaveAgain } from '../../storage/scope-entries.js';
import { quarantine } from '../../storage/sync-log.js';
import { startPush } from '../../storage/sync-receipts.js';
import type { OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { syncCollection, type SyncCollection } from './collections.js';
import { deviceFeed } from './device-feed.js';
import { parseDocument } from './pushed-documents.js';
import { applyLedgerEntry } from './ledger-push.js';
import { deviceCopyDiffers, differsForDevice, mergeDocument, sameValue } from './merge.js';
import { logClashes, PendingWrites } from './pending-writes.js';
import { effectiveBase, foldResults, mentionedChangeIds, rowId, type PushOutcome, type PushRun, type Row, type RowResult } from './push-run.js';
import { canLookUp, keepableDocument, quarantineIdOf, screenPush } from './push-screen.js';
import { References } from './references.js';
import { toDocument, type Doc } from './doc.js';

export { MAX_PUSH_ROWS, type PushOutcome, type Refusal } from './push-run.js';

/**
 * Push: apply a batch of changed documents, each merged with the server's state, in one
 * transaction (each row behind its own savepoint when a row fails, so one bad row never blocks
 * the rest).
 *
 * The answer lists the current server state of every row the device must adopt: rows that
 * merged into something other than what was sent, rows refused (read-only collection, wrong
 * role), and rows quarantined (answered with a tombstone so the device stops retrying). A row
 * whose change id the server has a receipt for was applied before: it changes nothing and is
 * answered again. A row that cannot be applied at all (push-screen.ts: nested too deep, malformed,
 * an id breaking the rule) is refused or quarantined alone before anything reads it.
 *
 * `checkpoint`, when the device sends it, is its pull position in this collection; the outcome
 * then says whether it may move past the push's own writes without pulling them (see
 * `PushOutcome.checkpoint`).
 */
export async function push(ctx: OperationContext, name: string, raw: unknown, checkpoint?: unknown, { onCheckpoint }: PushHooks = {}): Promise<PushOutcome> {
  const collection = syncCollection(name);
  const { rows, problems } = screenPush(raw);
  const since = parseInput(PushCheckpoint, checkpoint);
  if (!rows.length) return { conflicts: [], refused: [], quarantined: [], written: 0, checkpoint: null };
  const apply = (careful: boolean) =>
    ctx.db.transaction(async (tx) => {
      const outcome = await applyBatch({ ctx, tx, collection, rows, problems, since, careful });
      if (outcome.checkpoint) onCheckpoint?.(outcome.checkpoint.seq);
      return outcome;
    });
  try {
    return await apply(false);
  } catch (error) {
    if (!isDatabaseError(error)) throw error;
    // A database error in the fast path (writes batched, no savepoints) rolled everything back.
    // Redo row by row behind savepoints, so the one bad row is refused and the rest apply.
    return apply(true);
  }
}

export interface PushHooks {
  /**
   * Told the push's checkpoint before its commit: the live fan-out, which reads the push's entries
   * once the commit is announced, must already know to leave them off the pusher's own stream
   * (own-writes.ts). Were the commit to fail, no entry at or before it is ever written: the feed
   * past the device's checkpoint held only this push's rows, under the organization's feed lock.
   */
  onCheckpoint?: (seq: number) => void;
}

/** A database error (a constraint, a value the column refuses), as opposed to a rule or a bug. */
function isDatabaseError(error: unknown): boolean {
  if (isAppError(error)) return Boolean(error.details?.sqlstate);
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * Applies the rows in order, in one transaction under the organization's feed lock. Each row's
 * step returns its result (or leaves a write pending, batched with the others); the results are
 * folded into the answer at the end. `careful`: each row behind a savepoint, its writes flushed
 * before the next, so a database error refuses that row alone.
 */
interface Batch {
  ctx: OperationContext;
  tx: Queryable;
  collection: SyncCollection;
  rows: Row[];
  /** Rows the screen found unusable, with why (refused or quarantined alone). */
  problems: ReadonlyMap<Row, string>;
  /** The device's pull position, when it sent one. */
  since: number | undefined;
  /** Each row behind a savepoint, its writes flushed before the next (the redo after a database error). */
  careful: boolean;
}

async function applyBatch({ ctx, tx, collection, rows, problems, since, careful }: Batch): Promise<PushOutcome> {
  const orgId = ctx.viewer.orgId;
  const feed = deviceFeed(ctx.viewer, collection);
  const sound = rows.filter((r) => !problems.has(r));
  // The organization's feed lock first, then everything read (receipts, documents) is read behind it.
  const applied = await startPush(tx, orgId, mentionedChangeIds(sound), sound.flatMap((r) => (r.changeId ? [r.changeId] : [])));
  const masters = await lockDocuments<Doc>(tx, collection.table, orgId, [...new Set(rows.map(rowId).filter(canLookUp))]);
  const run: PushRun = { ctx, tx, collection, masters, applied, refs: new References(tx, orgId) };
  await run.refs.prefetch(collection.references.map((ref) => ({ table: ref.table, ids: sound.map((r) => r.newDocumentState[ref.field]) })));

  const results: RowResult[] = [];
  const writes = new PendingWrites();
  // The one place the documents' server states move on, so a later row sees what an earlier stored.
  const settle = (done: RowResult[]) => {
    for (const r of done) if (r.master) masters.set(r.id, r.master);
    results.push(...done);
  };
  for (const row of rows) {
    if (writes.has(rowId(row))) settle(await writes.flush(run));
    const problem = problems.get(row);
    if (problem) {
      settle([await refuseOrQuarantine(run, row, problem)]);
      continue;
    }
    if (row.changeId && run.applied.has(row.changeId)) {
      settle([answerRepeat(run, row)]);
      continue;
    }
    try {
      const applyThisRow = async () => {
        const result = await applyRow(run, row, writes);
        return [...(result ? [result] : []), ...(careful ? await writes.flush(run) : [])];
      };
      settle(careful ? await inSavepoint(tx, applyThisRow) : await applyThisRow());
    } catch (error) {
      writes.forget(rowId(row));
      const stored = isDatabaseError(error);
      if (!stored && !isAppError(error)) throw error; // a bug: the request fails, nothing is quarantined
      if (stored && !careful) throw error; // the transaction is aborted: start over carefully
      const message = error instanceof Error ? error.message : String(error);
      settle([await refuseOrQuarantine(run, row, stored ? `could not be stored (${message})` : message)]);
    }
  }
  settle(await writes.flush(run));
  await logClashes(ctx, tx, collection, results.flatMap((r) => (r.clashes ?? []).map((clash) => ({ documentId: r.id, clash }))));
  const { holding, ...outcome } = foldResults(results);
  const after = since === undefined ? null : await feed.entriesAfter(tx, since, holding.size + 1);
  let checkpoint = after && checkpointPastOwnWrites(after, since!, holding);
  if (feed.audience) {
    // A row the feed shows held after the push needs no departure: only the others are looked up.
    const held = new Set((after ?? []).filter((e) => e.present).map((e) => e.id));
    const left = await leaveAgain(tx, orgId, feed.audience, collection.name, collection.resource.table, sound.map(rowId).filter((id) => !held.has(id)));
    if (left.length) checkpoint = null; // the departures must be pulled
  }
  return { ...outcome, checkpoint };
}

/**
 * The position in the device's feed after this push's writes, when everything the feed holds past
 * the device's checkpoint is a row the device will hold as stored once it adopts the answer; else
 * null. Read at the end of the push, still under the organization's feed lock, so nothing else
 * writes meanwhile. An entry another writer moved before the lock is past the checkpoint too: if
 * its row is not one this push wrote (and so answered), the device has not seen it, and there is
 * no header; if it is, the push's own write moved the entry again, and the answer carries the row
 * as stored. Rows written another way (a deletion, a stock movement's levels) or by a hook are not
 * `holding`, and a departure is not held: then null.
 */
function checkpointPastOwnWrites(after: readonly { id: string; seq: number; present: boolean }[], since: number, holding: ReadonlySet<string>): { seq: number } | null {
  if (!after.every((row) => row.present && holding.has(row.id))) return null;
  return { seq: after.at(-1)?.seq ?? since };
}

/** A change applied before (its answer was lost): nothing is written; the device hears the state again. */
function answerRepeat(run: PushRun, row: Row): RowResult {
  const id = rowId(row);
  const master = run.masters.get(id);
  const sent = row.newDocumentState;
  const sentDeleted = sent._deleted === true;
  if (!master) return sentDeleted ? { id } : { id, answer: { ...sent, _deleted: true } };
  const differs = master.deleted !== sentDeleted || deviceCopyDiffers(run.collection.resource, master.record, sent);
  return differs ? { id, answer: toDocument(master.record, master.deleted) } : { id };
}

/** One row's step: its result, or null when its write is left pending in `writes`. */
async function applyRow(run: PushRun, row: Row, writes: PendingWrites): Promise<RowResult | null> {
  const { ctx, collection } = run;
  const id = rowId(row);
  const master = run.masters.get(id);
  if (collection.kind === 'readonly' || !collection.writers.includes(ctx.viewer.role)) {
    return refuseOrQuarantine(run, row, `${collection.name} is read-only for ${ctx.viewer.role}`);
  }
  const parsed = parseDocument(collection.resource, row.newDocumentState);
  // An invalid change (a pH of 15 queued by an older app) is kept whole, even over a server state.
  if (!parsed.ok) return refuseOrQuarantine(run, row, parsed.reason, { keep: true });
  if (collection.kind === 'ledger') return applyLedgerEntry(run, row, parsed.doc, parsed.deleted, (reason) => refuseOrQuarantine(run, row, reason));
  if (!master) return insertRow(run, row, parsed.doc, parsed.deleted, writes);
  const reason = collection.refuse?.(ctx, master.record);
  if (reason) return refuseOrQuarantine(run, row, reason);
  if (master.deleted) return parsed.deleted ? { id } : { id, answer: toDocument(master.record, true) };
  if (parsed.deleted) {
    await setDeleted(run.tx, collection.table, ctx.viewer.orgId, id, true);
    // Its stored tombstone is not answered: the device does not hold it as stored.
    return { id, written: true, deviceHolds: false, master: { ...master, deleted: true } };
  }
  return updateRow(run, row, parsed.doc, master.record, writes);
}

async function insertRow(run: PushRun, row: Row, doc: Doc, deleted: boolean, writes: PendingWrites): Promise<RowResult | null> {
  if (deleted) return { id: doc.id }; // created and deleted offline: nothing to keep
  await requireReferences(run, doc, null);
  const prepared = run.collection.onInsert ? await run.collection.onInsert(run.ctx, run.tx, doc, run.refs) : doc;
  // Nullable fields a device left out are stored as null.
  writes.insert(withNullsLeftOut(run.collection.resource, prepared), row.newDocumentState);
  return null;
}

async function updateRow(run: PushRun, row: Row, doc: Doc, master: Doc, writes: PendingWrites): Promise<RowResult | null> {
  const { collection, ctx } = run;
  const baseState = effectiveBase(run, row);
  const parsedBase = baseState ? parseDocument(collection.resource, baseState) : null;
  const base = parsedBase?.ok ? parsedBase.doc : null;
  const { merged, clashes } = mergeDocument(collection.resource, base, doc, master, ctx.viewer.role);
  if (differsForDevice(collection.resource, merged, master)) {
    await requireReferences(run, merged, master);
    const completed = collection.onUpdate ? await collection.onUpdate(ctx, run.tx, merged, master) : merged;
    writes.update(completed, row.newDocumentState, clashes);
    return null;
  }
  const answer = deviceCopyDiffers(collection.resource, master, row.newDocumentState) ? toDocument(master, false) : undefined;
  return { id: rowId(row), clashes, ...(answer ? { answer } : {}) };
}

/**
 * Every record a document names must exist in the organization, on every path: a new document,
 * and a change of the reference on an existing one (a dangling reference would break reads).
 */
async function requireReferences(run: PushRun, doc: Doc, master: Doc | null): Promise<void> {
  for (const ref of run.collection.references) {
    const value = doc[ref.field];
    if (value == null || (master && sameValue(master[ref.field], value))) continue;
    if (typeof value !== 'string' || !(await run.refs.exists(ref.table, value))) {
      throw errors.badInput(`${ref.what} ${String(value)} was not found`, { fields: [ref.field] });
    }
  }
}

/**
 * A row that cannot be applied. With a server state the device is answered with it (and
 * converges); without one, the document is quarantined and answered with a tombstone. `keep`: the
 * document is quarantined even when refused over a server state (an invalid change: what the
 * technician typed stays readable to the office, nothing is lost).
 */
async function refuseOrQuarantine(run: PushRun, row: Row, reason: string, { keep = false }: { keep?: boolean } = {}): Promise<RowResult> {
  const id = rowId(row);
  const master = run.masters.get(id);
  if (master && !keep) return { id, refused: reason, answer: toDocument(master.record, master.deleted) };
  // Kept as far as it can be stored: filed under a digest when its id breaks the rule, and as its
  // id alone when it nests too deep to handle (the reason says so).
  const document = keepableDocument(row.newDocumentState);
  await quarantine(run.tx, run.ctx.viewer.orgId, {
    id: newId(),
    collection: run.collection.name,
    documentId: quarantineIdOf(id),
    document,
    reason,
    pushedBy: run.ctx.viewer.userId,
  });
  if (master) return { id, refused: reason, answer: toDocument(master.record, master.deleted) };
  return { id, quarantined: reason, answer: { ...document, _deleted: true } };
}
