import { deepEqual } from 'rxdb/plugins/utils';
import { SyncFailure } from './failure.js';
import { pendingKey } from './pending-changes.js';
import { type PendingChange, type SentState } from '../replica/local-collections.js';
import { readStored, stateOf, writeStates, type DocState } from './replica-store.js';
import type { SyncContext } from './sync-context.js';

/**
 * Push, one batch of a collection's pending changes at a time.
 *
 * Before a state goes out it is recorded in its pending change (`sent`), so a push whose answer is
 * lost (or a client killed mid-push) sends the same change id again, and the server, holding a
 * receipt of it, changes nothing twice. Once answered, a document not edited meanwhile takes the
 * server's state (the answer, or exactly what was sent when the server answered nothing) and
 * leaves the pending changes; one edited meanwhile stays, with what was sent as the base its new edits
 * were made on.
 *
 * A push names the collection's pull checkpoint. When the server answers that everything after
 * it is this push's own writes, now on the device as stored, the checkpoint moves past them, and
 * the pull that follows does not bring 2,000 just-pushed visits back.
 */
export interface PushRow {
  assumedMasterState: DocState | null;
  newDocumentState: DocState;
  changeId: string;
  earlier: SentState[];
}

export interface PushResult {
  rows: PushRow[];
  answered: DocState[];
}

/**
 * `pull`: the server said the push's own writes need not come back (and so its stream leaves them
 * out), but the device could not move its checkpoint past them: they must be pulled.
 */
type Sent = { answered: DocState[]; pull: boolean };

/** Pushes the collection's oldest changes; null when its pending changes is empty. */
export async function pushBatch(ctx: SyncContext, name: string): Promise<(PushResult & { more: boolean; pull: boolean }) | null> {
  const { rows, more } = await ctx.lock.run(() => preparePush(ctx, name));
  if (!rows.length) return more ? { rows, answered: [], more, pull: false } : null;
  const { answered, pull } = await sendRows(ctx, name, rows);
  return { rows, answered, more, pull };
}

/**
 * Sends rows and settles the pending changes with the answer. A request the server refuses as a whole for
 * what it carries (413 too large, 400 invalid) is split in halves until the one change it cannot
 * take is found; that change is set aside in the pending changes with the server's reason (see PendingChanges),
 * and the others go through.
 */
async function sendRows(ctx: SyncContext, name: string, rows: PushRow[]): Promise<Sent> {
  try {
    return await sendAndSettle(ctx, name, rows);
  } catch (error) {
    if (!refusedForContent(error)) throw error;
    if (rows.length === 1) {
      const row = rows[0]!;
      await ctx.lock.run(() => ctx.pending.refuse(pendingKey(name, row.newDocumentState.id), error.message, row.changeId));
      return { answered: [], pull: false };
    }
    const half = Math.ceil(rows.length / 2);
    const [first, second] = [await sendRows(ctx, name, rows.slice(0, half)), await sendRows(ctx, name, rows.slice(half))];
    return { answered: [...first.answered, ...second.answered], pull: first.pull || second.pull };
  }
}

const refusedForContent = (error: unknown): error is SyncFailure =>
  error instanceof SyncFailure && error.kind === 'refused' && (error.details.status === 413 || error.details.status === 400);

async function sendAndSettle(ctx: SyncContext, name: string, rows: PushRow[]): Promise<Sent> {
  const since = await ctx.checkpoints.get(name);
  const { answered, checkpoint } = await ctx.remote.push(name, rows, since);
  const moved = await ctx.lock.run(async () => {
    const adoptedAll = await acknowledge(ctx, name, rows, answered);
    // Nothing else moves the checkpoint while a push is out (the engine runs one step at a time);
    // the check keeps it so should that change.
    if (checkpoint === null || !adoptedAll || (await ctx.checkpoints.get(name)) !== since) return false;
    await ctx.checkpoints.set(name, checkpoint);
    return true;
  });
  return { answered, pull: checkpoint !== null && !moved };
}

async function preparePush(ctx: SyncContext, name: string): Promise<{ rows: PushRow[]; more: boolean }> {
  const entries = await ctx.pending.oldest(name, ctx.pushBatchSize);
  const stored = await readStored(ctx.collection(name), entries.map((e) => e.docId));
  const rows: PushRow[] = [];
  const sending: PendingChange[] = [];
  const settled: string[] = [];
  for (const entry of entries) {
    const current = stored.get(entry.docId);
    const state = current ? stateOf(current, name) : null;
    const last = entry.sent.at(-1);
    if (state && last && deepEqual(last.state, state)) {
      rows.push({ assumedMasterState: entry.base, newDocumentState: state, changeId: last.changeId, earlier: entry.sent.slice(0, -1) });
    } else if (!state || (!entry.sent.length && madeAndDeletedHere(entry.base, state))) {
      // Nothing the server ever saw: made and deleted here, or an entry whose write never happened.
      // (A document edited back to its base is still sent: pulls passed it over while it had
      // local changes, and the answer brings what the server has now.)
      settled.push(entry.key);
    } else {
      rows.push({ assumedMasterState: entry.base, newDocumentState: state, changeId: entry.changeId, earlier: entry.sent });
      sending.push({ ...entry, sent: [...entry.sent, { changeId: entry.changeId, state }] });
    }
  }
  await ctx.pending.save(sending);
  await ctx.pending.remove(settled);
  return { rows, more: entries.length === ctx.pushBatchSize };
}

function madeAndDeletedHere(base: DocState | null, state: DocState): boolean {
  return base === null && state._deleted === true;
}

/**
 * Settles the pending changes after an answer. True when every row's document now holds the server's state
 * or has local changes pending (which a pull would pass over as well), so nothing a pull of the
 * push's own writes would bring is missing.
 */
async function acknowledge(ctx: SyncContext, name: string, rows: PushRow[], answered: DocState[]): Promise<boolean> {
  const serverState = new Map(answered.map((d) => [d.id, d]));
  const ids = rows.map((r) => r.newDocumentState.id);
  const entries = await ctx.pending.get(ids.map((id) => pendingKey(name, id)));
  const adopted: DocState[] = [];
  const done: string[] = [];
  const editedMeanwhile: PendingChange[] = [];
  let adoptedAll = true;
  for (const row of rows) {
    const id = row.newDocumentState.id;
    const entry = entries.get(pendingKey(name, id));
    if (!entry) {
      adoptedAll = false;
      continue;
    }
    if (entry.changeId === row.changeId) {
      adopted.push(serverState.get(id) ?? row.newDocumentState);
      done.push(entry.key);
    } else {
      editedMeanwhile.push({ ...entry, base: row.newDocumentState, sent: [] });
    }
  }
  // Copies: the rows and answers also go to the sync observer.
  const stored = await readStored(ctx.collection(name), adopted.map((d) => d.id));
  await writeStates(ctx.collection(name), adopted.map((d) => ({ ...d })), stored);
  await ctx.pending.remove(done);
  await ctx.pending.save(editedMeanwhile);
  return adoptedAll;
}
