import { errors, isAppError, PushCheckpoint, withNullsLeftOut } from '../../../shared/index.js';
import { feedHead, feedIdsAfter, lockDocuments, lockOrganizationFeed, setDeleted } from '../../storage/change-feed.js';
import type { Queryable } from '../../storage/db.js';
import { quarantine } from '../../storage/sync-log.js';
import { appliedChanges, recordChanges } from '../../storage/sync-receipts.js';
import type { OperationContext } from '../context.js';
import { newId } from '../ids.js';
import { parseInput } from '../input.js';
import { syncCollection, type SyncCollection } from './collections.js';
import { parseDocument, toDocument } from './documents.js';
import { applyMovement } from './ledger-push.js';
import { deviceCopyDiffers, differsForDevice, mergeDocument, sameValue, type Doc } from './merge.js';
import { logClashes, PendingWrites } from './pending-writes.js';
import { effectiveBase, mentionedChangeIds, PushRows, rowId, type PushOutcome, type PushRun, type Row } from './push-run.js';
import { References } from './references.js';

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
 * answered again.
 *
 * `checkpoint`, when the device sends it, is its pull position in this collection; the outcome
 * then says whether it may move past the push's own writes without pulling them (see
 * `PushOutcome.checkpoint`).
 */
export async function push(ctx: OperationContext, name: string, raw: unknown, checkpoint?: unknown): Promise<PushOutcome> {
  const collection = syncCollection(name);
  const rows = parseInput(PushRows, raw);
  const since = parseInput(PushCheckpoint, checkpoint);
  if (!rows.length) return emptyOutcome();
  try {
    return await ctx.db.transaction((tx) => applyBatch(ctx, tx, collection, rows, since, false));
  } catch (error) {
    if (!isDatabaseError(error)) throw error;
    // A database error in the fast path (writes batched, no savepoints) rolled everything back.
    // Redo row by row behind savepoints, so the one bad row is refused and the rest apply.
    return ctx.db.transaction((tx) => applyBatch(ctx, tx, collection, rows, since, true));
  }
}

const emptyOutcome = (): PushOutcome => ({ conflicts: [], refused: [], quarantined: [], written: 0, checkpoint: null });

/** A database error (a constraint, a value the column refuses), as opposed to a rule or a bug. */
function isDatabaseError(error: unknown): boolean {
  if (isAppError(error)) return Boolean(error.details?.sqlstate);
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

async function startRun(ctx: OperationContext, tx: Queryable, collection: SyncCollection, rows: Row[], since: number | undefined): Promise<PushRun> {
  const orgId = ctx.viewer.orgId;
  const ids = [...new Set(rows.map(rowId))];
  await lockOrganizationFeed(tx, orgId);
  const head = since === undefined ? null : await feedHead(tx, collection.table, orgId);
  const run: PushRun = {
    ctx,
    tx,
    collection,
    masters: await lockDocuments<Doc>(tx, collection.table, orgId, ids),
    applied: await appliedChanges(tx, orgId, mentionedChangeIds(rows)),
    refs: new References(tx, orgId),
    writes: new PendingWrites(collection),
    outcome: emptyOutcome(),
    headBefore: head !== null && head === since ? head : null,
    deviceHolds: new Set(),
  };
  for (const ref of collection.references ?? []) {
    await run.refs.prefetch(ref.table, rows.map((r) => r.newDocumentState[ref.field]));
  }
  return run;
}

async function applyBatch(
  ctx: OperationContext,
  tx: Queryable,
  collection: SyncCollection,
  rows: Row[],
  since: number | undefined,
  careful: boolean,
): Promise<PushOutcome> {
  const run = await startRun(ctx, tx, collection, rows, since);
  for (const row of rows) {
    if (run.writes.has(rowId(row))) await run.writes.flush(run);
    if (row.changeId && run.applied.has(row.changeId)) {
      answerRepeat(run, row);
      continue;
    }
    if (careful) await tx.query('savepoint push_row');
    try {
      await applyRow(run, row);
      if (careful) {
        await run.writes.flush(run);
        await tx.query('release savepoint push_row');
      }
    } catch (error) {
      run.writes.forget(rowId(row));
      const stored = isDatabaseError(error);
      if (!stored && !isAppError(error)) throw error; // a bug: the request fails, nothing is quarantined
      if (stored && !careful) throw error; // the transaction is aborted: start over carefully
      if (careful) await tx.query('rollback to savepoint push_row');
      const message = error instanceof Error ? error.message : String(error);
      await refuseOrQuarantine(run, row, stored ? `could not be stored (${message})` : message);
    }
  }
  await run.writes.flush(run);
  await recordChanges(tx, ctx.viewer.orgId, rows.flatMap((r) => (r.changeId && !run.applied.has(r.changeId) ? [r.changeId] : [])));
  run.outcome.checkpoint = await checkpointPastOwnWrites(run);
  return run.outcome;
}

/**
 * The feed position after this push's writes, if the device that sent its checkpoint (the head
 * when the lock was taken) will hold every row changed since as stored; else null. Still under
 * the organization's feed lock, so nothing else has written meanwhile. Rows written another way
 * (a deletion, a stock movement's levels) or by a hook are not in `deviceHolds`: then null.
 */
async function checkpointPastOwnWrites(run: PushRun): Promise<{ seq: number } | null> {
  if (run.headBefore === null) return null;
  const changed = await feedIdsAfter(run.tx, run.collection.table, run.ctx.viewer.orgId, run.headBefore, run.deviceHolds.size + 1);
  if (!changed.every((row) => run.deviceHolds.has(row.id))) return null;
  return { seq: changed.at(-1)?.seq ?? run.headBefore };
}

/** A change applied before (its answer was lost): nothing is written; the device hears the state again. */
function answerRepeat(run: PushRun, row: Row): void {
  const master = run.masters.get(rowId(row));
  const sent = row.newDocumentState;
  const sentDeleted = sent._deleted === true;
  if (!master) {
    if (!sentDeleted) run.outcome.conflicts.push({ ...sent, _deleted: true });
    return;
  }
  if (master.deleted !== sentDeleted || deviceCopyDiffers(run.collection.resource, master.record, sent)) {
    run.outcome.conflicts.push(toDocument(master.record, master.deleted));
  }
}

async function applyRow(run: PushRun, row: Row): Promise<void> {
  const { ctx, collection } = run;
  const id = rowId(row);
  const master = run.masters.get(id);
  if (collection.kind === 'readonly' || !collection.writers.includes(ctx.viewer.role)) {
    return refuseOrQuarantine(run, row, `${collection.name} is read-only for ${ctx.viewer.role}`);
  }
  const parsed = parseDocument(collection.resource, row.newDocumentState);
  if (!parsed.ok) return refuseOrQuarantine(run, row, parsed.reason);
  if (collection.kind === 'ledger') return applyMovement(run, row, parsed.doc, parsed.deleted, (reason) => refuseOrQuarantine(run, row, reason));
  if (!master) return insertRow(run, row, parsed.doc, parsed.deleted);
  const reason = collection.refuse?.(ctx, master.record);
  if (reason) return refuseOrQuarantine(run, row, reason);
  if (master.deleted) {
    if (!parsed.deleted) run.outcome.conflicts.push(toDocument(master.record, true));
    return;
  }
  if (parsed.deleted) {
    await setDeleted(run.tx, collection.table, ctx.viewer.orgId, id, true);
    run.deviceHolds.delete(id); // its stored tombstone is not answered
    run.masters.set(id, { ...master, deleted: true });
    run.outcome.written++;
    return;
  }
  return updateRow(run, row, parsed.doc, master.record);
}

async function insertRow(run: PushRun, row: Row, doc: Doc, deleted: boolean): Promise<void> {
  if (deleted) return; // created and deleted offline: nothing to keep
  await requireReferences(run, doc, null);
  const prepared = run.collection.onInsert ? await run.collection.onInsert(run.ctx, run.tx, doc, run.refs) : doc;
  // Nullable fields a device left out are stored as null.
  run.writes.insert(withNullsLeftOut(run.collection.resource, prepared), row.newDocumentState);
}

async function updateRow(run: PushRun, row: Row, doc: Doc, master: Doc): Promise<void> {
  const { collection, ctx } = run;
  const baseState = effectiveBase(run, row);
  const parsedBase = baseState ? parseDocument(collection.resource, baseState) : null;
  const base = parsedBase?.ok ? parsedBase.doc : null;
  const { merged, clashes } = mergeDocument(collection.resource, base, doc, master, ctx.viewer.role);
  if (differsForDevice(collection.resource, merged, master)) {
    await requireReferences(run, merged, master);
    const completed = collection.onUpdate ? await collection.onUpdate(ctx, run.tx, merged, master) : merged;
    run.writes.update(completed, row.newDocumentState, clashes);
    return;
  }
  await logClashes(run, clashes.map((clash) => ({ documentId: rowId(row), clash })));
  if (deviceCopyDiffers(collection.resource, master, row.newDocumentState)) run.outcome.conflicts.push(toDocument(master, false));
}

/**
 * Every record a document names must exist in the organization, on every path: a new document,
 * and a change of the reference on an existing one (a dangling reference would break reads).
 */
async function requireReferences(run: PushRun, doc: Doc, master: Doc | null): Promise<void> {
  for (const ref of run.collection.references ?? []) {
    const value = doc[ref.field];
    if (value == null || (master && sameValue(master[ref.field], value))) continue;
    if (typeof value !== 'string' || !(await run.refs.exists(ref.table, value))) {
      throw errors.badInput(`${ref.what} ${String(value)} was not found`, { fields: [ref.field] });
    }
  }
}

/**
 * A row that cannot be applied. With a server state the device is answered with it (and
 * converges); without one, the document is quarantined and answered with a tombstone.
 */
async function refuseOrQuarantine(run: PushRun, row: Row, reason: string): Promise<void> {
  const id = rowId(row);
  const master = run.masters.get(id);
  if (master) {
    run.outcome.refused.push({ id, reason });
    run.outcome.conflicts.push(toDocument(master.record, master.deleted));
    return;
  }
  await quarantine(run.tx, run.ctx.viewer.orgId, {
    id: newId(),
    collection: run.collection.name,
    documentId: id,
    document: row.newDocumentState,
    reason,
    pushedBy: run.ctx.viewer.userId,
  });
  run.outcome.quarantined.push({ id, reason });
  run.outcome.conflicts.push({ ...row.newDocumentState, _deleted: true });
}
