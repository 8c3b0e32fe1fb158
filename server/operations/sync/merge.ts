import { isDeepStrictEqual } from 'node:util';
import type { FieldMeta, ResourceDef, Role } from '../../../shared/index.js';
import { deviceValue, type Doc, type Fields } from './doc.js';

/**
 * Server-side three-way merge of a pushed document, field by field, by the rules declared in
 * shared/ (who owns the field, how it merges).
 *
 * - base: the state the device last saw (assumedMasterState), null for a new document;
 * - ours: what the device pushes (newDocumentState);
 * - theirs: the server's current state.
 *
 * A field changed on one side only takes that side. A field changed on both sides to different
 * values is a clash: sets merge (tags), photo lists unite by id, and plain values go to the
 * field's owner (technician or office), or to the newest write for shared fields. Every value a
 * clash throws away is reported, to be written to sync_conflicts. Server-owned fields always keep
 * the server's value.
 */

export interface Clash {
  field: string;
  kept: unknown;
  lost: unknown;
  /** Why this side won, e.g. "technician-owned field, pushed by OFFICE". */
  rule: string;
}

export interface MergeResult {
  merged: Doc;
  clashes: Clash[];
}

const same = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);

/** Whether two values of a field are equal (null and absent alike). */
export const sameValue = same;

export function mergeDocument(resource: ResourceDef, base: Fields | null, ours: Doc, theirs: Doc, pusher: Role): MergeResult {
  const merged: Doc = { ...theirs };
  const clashes: Clash[] = [];
  for (const [field, { meta }] of Object.entries(resource.fields)) {
    if (meta.owner === 'server' || field === 'id') continue;
    if (!(field in ours)) continue;
    // Compared as the device can know them: nested server-owned parts (a quote line's amount, a
    // photo's size) are cleared in what a device sends, so they are cleared on the server's side
    // too; a retried quote is then the same quote, not a clash over amounts.
    const b = base ? base[field] : undefined;
    const o = ours[field];
    const t = deviceValue(meta.kind, theirs[field]);
    const oursChanged = base ? !same(b, o) : !same(t, o);
    const theirsChanged = base ? !same(b, t) : true;
    if (!oursChanged || same(o, t)) continue;
    // Lists united by id always go through the union, which keeps the server's parts of items.
    if (!theirsChanged && meta.merge !== 'unionById') {
      merged[field] = o;
      continue;
    }
    const resolved = resolveClash(meta, field, b ?? null, o, theirs[field], pusher);
    merged[field] = resolved.value;
    if (resolved.clash) clashes.push(resolved.clash);
  }
  return { merged, clashes };
}

function resolveClash(
  meta: FieldMeta,
  field: string,
  base: unknown,
  ours: unknown,
  theirs: unknown,
  pusher: Role,
): { value: unknown; clash?: Clash } {
  if (meta.merge === 'set') return { value: mergeSets(base, ours, theirs) };
  if (meta.merge === 'unionById') return { value: uniteById(base, ours, theirs) };
  const oursWins = ownerWins(meta, pusher);
  const rule =
    meta.owner === 'shared'
      ? 'shared field: the newest write wins'
      : `${meta.owner}-owned field, pushed by ${pusher}`;
  return oursWins
    ? { value: ours, clash: { field, kept: ours, lost: theirs, rule } }
    : { value: theirs, clash: { field, kept: theirs, lost: ours, rule } };
}

/** Whether the pushed value wins a clash on a plain field. */
function ownerWins(meta: FieldMeta, pusher: Role): boolean {
  if (meta.owner === 'technician') return pusher === 'TECHNICIAN';
  if (meta.owner === 'office') return pusher !== 'TECHNICIAN';
  return true;
}

/** The server's set, plus what the device added, minus what the device removed. */
function mergeSets(base: unknown, ours: unknown, theirs: unknown): unknown {
  if (ours === null && theirs === null) return null;
  const b = new Set(listOf(base));
  const o = new Set(listOf(ours));
  const result = listOf(theirs).filter((v) => !(b.has(v) && !o.has(v)));
  for (const v of o) if (!b.has(v) && !result.includes(v)) result.push(v);
  return result;
}

/**
 * Lists of objects with ids (photos, bodies of water): every item either side has, the server's
 * order first. For an item on both sides, the device's fields apply where the device changed them.
 */
function uniteById(base: unknown, ours: unknown, theirs: unknown): unknown {
  const baseItems = new Map(itemsOf(base).map((i) => [i.id, i]));
  const ourItems = new Map(itemsOf(ours).map((i) => [i.id, i]));
  const result: Doc[] = itemsOf(theirs).map((item) => {
    const mine = ourItems.get(item.id);
    if (!mine) return item;
    const before = baseItems.get(item.id);
    const changed = Object.fromEntries(Object.entries(mine).filter(([k, v]) => !same(before?.[k], v) && v !== null));
    return { ...item, ...changed, ...serverFieldsOf(item) };
  });
  const known = new Set(result.map((i) => i.id));
  for (const item of ourItems.values()) if (!known.has(item.id)) result.push(item);
  return result;
}

/** A list field's values (null or absent: none). Validation has already made lists lists. */
function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A list field's items that have an id (photos, bodies of water). */
function itemsOf(value: unknown): Doc[] {
  return listOf(value).filter((item): item is Doc => typeof item === 'object' && item !== null && 'id' in item && typeof item.id === 'string');
}

/** Photo fields only the server fills in (the bytes' size and type) stay the server's. */
function serverFieldsOf(item: Fields): Fields {
  const keep: Fields = {};
  for (const key of ['size', 'contentType', 'url']) if (item[key] != null) keep[key] = item[key];
  return keep;
}

/** Whether a merged document differs from what the device sent, in fields the device may set. */
export function differsForDevice(resource: ResourceDef, merged: Fields, ours: Fields): boolean {
  return Object.entries(resource.fields).some(
    ([field, { meta }]) => meta.owner !== 'server' && field in ours && !same(merged[field], ours[field]),
  );
}

/**
 * Whether a device that sent `sent` does not hold the stored document: a merge changed it, or the
 * server set fields the device could not know (timestamps, quote numbers and amounts, nulls for
 * fields left out). Push answers such a row with the stored state, because RxDB adopts a server
 * state only from a push answer or a pull: a stream event for a document that still has a push in
 * flight is dropped, and the checkpoint moves past it.
 */
export function deviceCopyDiffers(resource: ResourceDef, stored: Fields, sent: Fields): boolean {
  return Object.keys(resource.fields).some((field) => !same(stored[field], sent[field]));
}
