import type { CollectionName } from '../resources/index.js';

/**
 * Fields a device's replica keeps beside a collection's documents so that its queries run on an
 * index: RxDB indexes only required fields of a bounded size, and a visit's start and technician
 * may be null. Each key is derived from a field of the document on every write to the replica (the
 * SDK's storage, client-sdk/replica/keys.ts) and is never sent to the server or shown to the app.
 *
 * - `startKey`: the visit's start as a UTC ISO time ('' without one), so a day or a week is a
 *   range of the index and sorts by time;
 * - `technicianKey`: its primary technician ('' for none), for one technician's visits in time.
 */
/** The keys as a replica's documents carry them, per collection (REPLICA_KEYS declares how each is made). */
export interface ReplicaKeyFields {
  services: { startKey: string; technicianKey: string };
}

export interface ReplicaKey {
  readonly from: string;
  readonly kind: 'time' | 'id';
  readonly maxLength: number;
}

export const REPLICA_KEYS: Readonly<Partial<Record<CollectionName, Readonly<Record<string, ReplicaKey>>>>> & { readonly [C in keyof ReplicaKeyFields]: Readonly<Record<keyof ReplicaKeyFields[C], ReplicaKey>> } = {
  services: {
    startKey: { from: 'startTime', kind: 'time', maxLength: 30 },
    technicianKey: { from: 'newTechnicianId', kind: 'id', maxLength: 128 },
  },
};

/** The indexes of a collection's replica (RxDB appends the primary key to each). */
export const REPLICA_INDEXES: Readonly<Partial<Record<CollectionName, readonly (readonly string[])[]>>> = {
  services: [['startKey'], ['technicianKey', 'startKey']],
};

const CANONICAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A time as the key sorts it: UTC ISO with milliseconds, or '' (none, or not a time). */
export function timeKey(value: unknown): string {
  if (typeof value !== 'string') return '';
  const time = Date.parse(value);
  if (Number.isNaN(time)) return '';
  // A time already in that form is its own key: the same string, not a copy (every visit's key is
  // kept in the replica), and no formatting, which took most of a first sync's key time. Parsing
  // moves only a day past its month's end or an hour of 24 to another day, so its day tells.
  return CANONICAL_TIME.test(value) && new Date(time).getUTCDate() === Number(value.slice(8, 10)) ? value : new Date(time).toISOString();
}


/** The keys of a document of the collection (none for a collection without keys). */
export function replicaKeysOf(collection: string, doc: Readonly<Record<string, unknown>>): Record<string, string> | null {
  const keys = KEY_ENTRIES.get(collection);
  if (!keys) return null;
  const out: Record<string, string> = {};
  for (const [name, key] of keys) out[name] = key.kind === 'time' ? timeKey(doc[key.from]) : typeof doc[key.from] === 'string' ? (doc[key.from] as string) : '';
  return out;
}

/** REPLICA_KEYS as lists, listed once: the keys are derived at every write of every document. */
const KEY_ENTRIES: ReadonlyMap<string, readonly [string, ReplicaKey][]> = new Map(Object.entries(REPLICA_KEYS).map(([collection, keys]) => [collection, Object.entries(keys)]));

/** Whether a field is one of the replica's own keys (dropped from what goes to the server). */
export function isReplicaKey(collection: string, field: string): boolean {
  return Object.hasOwn(REPLICA_KEYS[collection as CollectionName] ?? {}, field);
}

/** A replica document without its replica keys: what the server and the app know of it. */
export function withoutReplicaKeys<T extends Record<string, unknown>>(collection: string, doc: T): T {
  const keys = REPLICA_KEYS[collection as CollectionName];
  if (!keys) return doc;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(doc)) if (!Object.hasOwn(keys, field)) out[field] = value;
  return out as T;
}
