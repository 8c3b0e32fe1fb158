import type { DocState } from '../../shared/index.js';

/**
 * The replica's two local collections, which never sync as themselves: the device's pending
 * changes (its outbox) and its queue of photos waiting to upload. Their schemas live here, beside
 * the database that opens them (database.ts); the code that works them is in replication/
 * (pending-changes.ts) and uploads/ (photo-queue.ts), which import from here, never the reverse.
 */

/**
 * Local changes not yet acknowledged by the server, one entry per changed document, kept in a
 * collection of the replica (so they survive a restart and `pendingPushes` can be counted from
 * storage). An entry holds:
 * - `base`: the server state the local edits were made on (null for a document made here), sent
 *   as assumedMasterState so the server merges field by field;
 * - `changeId`: a fresh random id for the document's current local state;
 * - `sent`: states pushed whose answer never arrived, with their change ids. Until answered they
 *   go with every push of the document, so the server can tell which of them it applied;
 * - `refused`: why the server refused the whole request holding this change alone (too large,
 *   say), or null. A refused change stays on the device, reported and left out of pushes, so it
 *   does not hold up the rest; the next local change of the document clears it.
 */
export const PENDING_CHANGES = 'pendingChanges';

export interface SentState {
  changeId: string;
  state: DocState;
}

export interface PendingChange {
  key: string;
  /** The synced collection (named so as not to shadow RxDocument's own `collection`). */
  collectionName: string;
  docId: string;
  base: DocState | null;
  changeId: string;
  sent: SentState[];
  updatedAt: string;
  refused: string | null;
}

export const pendingChangesSchema = {
  version: 1,
  title: 'local changes waiting for the server',
  primaryKey: 'key',
  type: 'object',
  properties: {
    key: { type: 'string', maxLength: 300 },
    collectionName: { type: 'string', maxLength: 40 },
    docId: { type: 'string' },
    base: { type: ['object', 'null'] },
    changeId: { type: 'string' },
    sent: { type: 'array', items: { type: 'object' } },
    updatedAt: { type: 'string', maxLength: 40 },
    refused: { type: ['string', 'null'] },
  },
  required: ['key', 'collectionName', 'docId', 'changeId', 'sent', 'updatedAt'],
  indexes: [['collectionName', 'updatedAt']],
  additionalProperties: false,
} as const;

/** Version 0 had no refusals. */
export const pendingChangesMigrations = { 1: (entry: Omit<PendingChange, 'refused'>): PendingChange => ({ ...entry, refused: null }) };

/**
 * Photos taken offline wait here, in a local collection of the replica (so the queue survives a
 * restart), until the server has confirmed them (uploads/photo-queue.ts uploads them).
 */
export const PHOTO_QUEUE = 'photoUploads';

export const photoQueueSchema = {
  version: 0,
  title: 'photo upload queue',
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 128 },
    parent: { type: 'string', enum: ['services', 'quotes'] },
    parentId: { type: 'string' },
    caption: { type: ['string', 'null'] },
    contentType: { type: 'string' },
    data: { type: 'string', description: 'the bytes, base64' },
    queuedAt: { type: 'string' },
    /** Set when the server refused the file for good (wrong type, too large). */
    failure: { type: ['string', 'null'] },
  },
  required: ['id', 'parent', 'parentId', 'contentType', 'data', 'queuedAt'],
  additionalProperties: false,
} as const;

export interface QueuedPhoto {
  id: string;
  parent: 'services' | 'quotes';
  parentId: string;
  caption: string | null;
  contentType: string;
  data: string;
  queuedAt: string;
  failure: string | null;
}

