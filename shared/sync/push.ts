import * as z from 'zod';
import { DecimalQueryInteger } from './decimal.js';
import { ReceivedDocument } from './document.js';

/**
 * Push: `POST /sync/:collection/push[?checkpoint=<seq>]` with rows; answers the server states the
 * device must adopt.
 *
 * A row is RxDB's `{assumedMasterState, newDocumentState}`. Our SDK adds `changeId`, a random id
 * naming this state of the document (kept by the device until the push is answered), and
 * `earlier`, the states it sent before for the same document whose answers it never received.
 * With them the server recognises a push it applied already (a receipt of the change id) and
 * merges against what the device really sent last, so a lost answer neither applies a change
 * twice nor blames the device for conflicting with itself. Clients without them (stock RxDB
 * replication) get the merge by assumedMasterState alone.
 */
export const MAX_PUSH_ROWS = 2000;
/** States sent without an answer that a row may carry (a device keeps at most this many). */
export const MAX_EARLIER = 20;

const State = z.record(z.string(), z.unknown());
const ChangeId = z.string().min(1).max(100);

export const PushRow = z.object({
  assumedMasterState: State.nullish(),
  newDocumentState: z.object({ id: z.string().min(1, 'needs an id') }).catchall(z.unknown()),
  changeId: ChangeId.optional(),
  earlier: z.array(z.object({ changeId: ChangeId, state: State })).max(MAX_EARLIER).optional(),
});
export type PushRow = z.output<typeof PushRow>;

export const PushRows = z.array(PushRow).max(MAX_PUSH_ROWS);

export const PushCheckpoint = DecimalQueryInteger.optional();

/** The server states to adopt. */
export const PushAnswer = z.array(ReceivedDocument);
