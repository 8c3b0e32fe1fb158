import type { FieldKind } from '../../../shared/index.js';

/**
 * A document as sync handles it on the server: a record's fields by name, plus its id, as pulled,
 * pushed, merged and answered. The vocabulary every sync step shares (merge.ts, pushed-documents.ts,
 * push.ts, the live fan-out), kept apart so none of them imports another for it.
 */
/** Any document-like state (a base a device sent, a nested object): fields by name. */
export type Fields = Record<string, unknown>;
/** A document: fields plus its id. */
export type Doc = Fields & { id: string };

/** A field's value as a device may send it: nested server-owned parts cleared (null). */
export function deviceValue(kind: FieldKind, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (kind.type === 'list') return Array.isArray(value) ? value.map((v) => deviceValue(kind.of, v)) : value;
  if (kind.type !== 'object' || typeof value !== 'object') return value;
  const out: Fields = { ...value };
  for (const [name, { meta }] of Object.entries(kind.shape.fields)) {
    if (meta.owner === 'server') out[name] = null;
    else if (name in out) out[name] = deviceValue(meta.kind, out[name]);
  }
  return out;
}

/** A record as a replicated document. */
export function toDocument(record: { id: string }, deleted: boolean): Doc {
  return { ...record, _deleted: deleted };
}
