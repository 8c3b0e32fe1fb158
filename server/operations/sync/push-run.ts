import type { PushRow } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import type { OperationContext } from '../context.js';
import type { SyncCollection } from './collections.js';
import type { Clash } from './merge.js';
import type { References } from './references.js';
import { type Doc, type Fields } from './doc.js';

/**
 * What one push works with, and what each of its rows comes to.
 *
 * The steps of a push (push.ts, pending-writes.ts, ledger-push.ts) read a `PushRun` and return a
 * `RowResult` per row; none of them changes a shared outcome. The push folds the results into the
 * answer once at the end (`foldResults`). The one thing that evolves while rows are applied is
 * each document's server state (`masters`), which the push loop alone updates from the results,
 * so a later row of the same document merges with what an earlier row stored.
 */
export { MAX_PUSH_ROWS, PushRows } from '../../../shared/index.js';
export type Row = PushRow;
export type Master = { record: Doc; deleted: boolean };

export interface PushRun {
  ctx: OperationContext;
  tx: Queryable;
  collection: SyncCollection;
  /** Current server state of every document the push names, locked for the transaction. */
  readonly masters: ReadonlyMap<string, Master>;
  /** Change ids (of rows and their earlier states) the server had applied before this push. */
  applied: ReadonlySet<string>;
  refs: References;
}

/** What became of one row. */
export interface RowResult {
  id: string;
  /** The server state the device must adopt (merged, refused, completed, or a tombstone). */
  answer?: Doc;
  /** The row wrote a change. */
  written?: boolean;
  /**
   * After adopting the answer, does the device hold the document exactly as stored? true: yes (it
   * was answered, or sent as stored); false: no (a deletion, whose stored tombstone is not
   * answered); absent: the row changed nothing stored.
   */
  deviceHolds?: boolean;
  refused?: string;
  quarantined?: string;
  /** Overwritten values, for the conflict log. */
  clashes?: Clash[];
  /** The document's server state after this row, for later rows of the push. */
  master?: Master;
}

export interface Refusal {
  id: string;
  reason: string;
}

export interface PushOutcome {
  /** Server states the device must adopt (merged, refused, completed by the server, or tombstones). */
  conflicts: Doc[];
  refused: Refusal[];
  quarantined: Refusal[];
  /** Number of rows written. */
  written: number;
  /**
   * Where the device's pull checkpoint may move once it has adopted this answer, or null. Set
   * only when the push named the device's checkpoint, that checkpoint was the feed's head when
   * the push took the organization's feed lock, and every row the push wrote is one the device
   * holds as stored after adopting the answer: then nothing between the two positions is news to
   * the device, and it need not pull its own writes back (2,000 pushed visits are 2.6 MB).
   */
  checkpoint: { seq: number } | null;
}

/** The answer of a push, from its rows' results in order. `holding`: ids written that the device will hold as stored. */
export function foldResults(results: readonly RowResult[]): Omit<PushOutcome, 'checkpoint'> & { holding: Set<string> } {
  const outcome: ReturnType<typeof foldResults> = { conflicts: [], refused: [], quarantined: [], written: 0, holding: new Set() };
  for (const r of results) {
    if (r.answer) outcome.conflicts.push(r.answer);
    if (r.written) outcome.written++;
    if (r.refused) outcome.refused.push({ id: r.id, reason: r.refused });
    if (r.quarantined) outcome.quarantined.push({ id: r.id, reason: r.quarantined });
    if (r.deviceHolds === true) outcome.holding.add(r.id);
    if (r.deviceHolds === false) outcome.holding.delete(r.id);
  }
  return outcome;
}

export const rowId = (row: Row) => row.newDocumentState.id;

/** Every change id a batch mentions, for one receipts lookup. */
export function mentionedChangeIds(rows: Row[]): string[] {
  return rows.flatMap((r) => [...(r.changeId ? [r.changeId] : []), ...(r.earlier ?? []).map((e) => e.changeId)]);
}

/**
 * The state the device's change should be merged against: the newest earlier state the server
 * applied (the device never heard the answer, so its own write is not a conflict), else the
 * state the device last received.
 */
export function effectiveBase(run: PushRun, row: Row): Fields | null {
  const landed = (row.earlier ?? []).filter((e) => run.applied.has(e.changeId)).at(-1);
  return landed ? landed.state : row.assumedMasterState ?? null;
}
