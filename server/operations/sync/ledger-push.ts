import { toDocument, type Doc } from './doc.js';
import { deviceCopyDiffers, differsForDevice } from './merge.js';
import { rowId, type PushRun, type Row, type RowResult } from './push-run.js';

/**
 * Ledger collections (stock movements, payments) are insert-only: each entry is recorded once, by
 * its collection's `recordEntry` (ledger-entries.ts), in the push's transaction with what it
 * changes elsewhere (a level, an invoice's balance); edits and deletes are refused.
 */
export async function applyLedgerEntry(run: PushRun, row: Row, doc: Doc, deleted: boolean, refuse: (reason: string) => Promise<RowResult>): Promise<RowResult> {
  const { resource, name, recordEntry } = run.collection;
  const id = rowId(row);
  const master = run.masters.get(id);
  if (master) {
    // The same entry again (a retry): recorded once, answered with what was stored.
    if (deleted || differsForDevice(resource, master.record, doc)) return refuse(`${name} cannot be changed or deleted once recorded`);
    return deviceCopyDiffers(resource, master.record, row.newDocumentState) ? { id, answer: toDocument(master.record, false) } : { id };
  }
  if (deleted) return { id };
  if (!recordEntry) throw new Error(`${name} is a ledger without a way to record an entry`);
  const recorded = await recordEntry(run.ctx, run.tx, doc);
  if ('refused' in recorded) return refuse(recorded.refused);
  const { entry, applied } = recorded;
  // What it changed elsewhere (levels, an item's total, invoices) is other rows of the feed:
  // `deviceHolds` stays unset, so the device pulls them.
  return {
    id,
    written: applied,
    master: { record: entry, deleted: false },
    ...(deviceCopyDiffers(resource, entry, row.newDocumentState) ? { answer: toDocument(entry, false) } : {}),
  };
}
