/**
 * What a stream need not be sent again: its own device's pushed rows.
 *
 * A push answered with `Sync-Checkpoint: S` told its device that every entry of its feed up to S
 * is a row the push wrote and the device now holds as stored (push.ts, `checkpointPastOwnWrites`).
 * Sending those rows back on the device's stream (2,000 pushed visits are 2.6 MB, read, written
 * and parsed again) tells it nothing. When the push names the stream it came beside
 * (`?stream=<id>`, the id the stream was answered with), the fan-out leaves out, for that stream
 * alone, the collection's entries at or before S:
 *
 * - what is left is always a suffix of the batch, and it says `since: <the last entry left out>`;
 *   a device whose checkpoint reached S (it adopted the answer) applies it as always; one that did
 *   not (the answer was lost, or not adopted) sees a `since` past its checkpoint and pulls, so
 *   nothing left out is ever skipped over;
 * - a batch with nothing left is not sent: the device's checkpoint is S already, and the next
 *   batch's `since` is at most S;
 * - anyone else's write of a pushed row after the push is an entry past S, sent as always; other
 *   streams (another device with the same token, another tab's) are sent everything.
 */
export class OwnWrites {
  private readonly upTo = new Map<string, number>();

  /** The device pushed everything of `collection`'s feed up to `seq` (and holds it). */
  pushed(collection: string, seq: number): void {
    if (seq > (this.upTo.get(collection) ?? 0)) this.upTo.set(collection, seq);
  }

  /**
   * Sends a batch whose entries are at `positions` (ascending): `json`, the whole batch, or
   * `batch(from, since)` for the entries from index `from` on, after the last one left out, or
   * nothing.
   */
  send(sender: (json: string) => void, collection: string, positions: readonly number[], json: string, batch: (from: number, since: number) => string): void {
    const upTo = this.upTo.get(collection);
    if (upTo === undefined || positions[0]! > upTo) return sender(json);
    const from = positions.findIndex((seq) => seq > upTo);
    if (from === -1) return;
    sender(batch(from, positions[from - 1]!));
  }
}
