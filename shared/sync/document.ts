import * as z from 'zod';

/**
 * A document as the replication protocol carries it: a resource's fields, its `id`, and
 * `_deleted` for a tombstone. What each field holds is the resource's business (shared/resources);
 * the protocol only promises an object with an id.
 */
export type DocState = Record<string, unknown> & { id: string; _deleted?: boolean };

/**
 * A departure: the row left this device's scope (the office moved a visit to another technician,
 * a truck changed hands). Sent as `{id, _deleted: true, _left: true}`: the device drops its copy,
 * but the row lives on on the server, so what hangs off it on the device (a photo still to upload)
 * must not be thrown away as if it had been deleted.
 */
export const DEPARTED = '_left';

export function isDeparture(doc: Readonly<Record<string, unknown>>): boolean {
  return doc._deleted === true && doc[DEPARTED] === true;
}

export function isDocState(value: unknown): value is DocState {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string';
}

/**
 * A document received from the server. Checked, not copied: a pull page holds 5,000 of them, and
 * parsing each into a new object cost a device as much again in garbage.
 */
export const ReceivedDocument = z.custom<DocState>(isDocState, 'a document with an id');

/** A position in a collection's change feed: the `seq` of the last change applied. */
export const Checkpoint = z.object({ seq: z.number().int().min(0) });
export type Checkpoint = z.output<typeof Checkpoint>;
