import type { PushRow } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import type { OperationContext } from '../context.js';
import type { SyncCollection } from './collections.js';
import type { Doc, Fields } from './merge.js';
import type { PendingWrites } from './pending-writes.js';
import type { References } from './references.js';

/**
 * The state one push works on, shared by its steps. The rows are the protocol's (shared/sync/push.ts).
 */
export { MAX_PUSH_ROWS, PushRows } from '../../../shared/index.js';
export type Row = PushRow;
export type Master = { record: Doc; deleted: boolean };

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

export interface PushRun {
  ctx: OperationContext;
  tx: Queryable;
  collection: SyncCollection;
  /** Current server state of every document the push names, locked for the transaction. */
  masters: Map<string, Master>;
  /** Change ids (of rows and their earlier states) the server had applied before this push. */
  applied: Set<string>;
  refs: References;
  writes: PendingWrites;
  outcome: PushOutcome;
  /** The feed's head when the push took the lock, if it equals the device's checkpoint; else null. */
  headBefore: number | null;
  /** Ids written whose stored state the device will hold once it adopts the answer. */
  deviceHolds: Set<string>;
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
