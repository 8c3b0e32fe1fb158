import type { z } from 'zod';
import { describeIssues, recordValidator, type ResourceDef } from '../../../shared/index.js';
import { deviceValue, type Doc, type Fields } from './doc.js';

/**
 * Pushed documents as the server reads them: RxDB's bookkeeping keys dropped, validated against
 * the shared definition (server-owned fields optional: a device cannot know them), and every
 * server-owned field, top level or nested (a photo's size), removed or cleared so a device can
 * never set it.
 */
const BOOKKEEPING = ['_deleted', '_meta', '_rev', '_attachments'];

export type ParsedDocument = { ok: true; doc: Doc; deleted: boolean } | { ok: false; reason: string };

const validators = new WeakMap<ResourceDef, z.ZodObject>();

function pushValidator(resource: ResourceDef): z.ZodObject {
  let validator = validators.get(resource);
  if (!validator) {
    const serverOwned = Object.entries(resource.fields)
      .filter(([, { meta }]) => meta.owner === 'server')
      .map(([name]) => [name, true] as const);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    validator = recordValidator(resource).partial(Object.fromEntries(serverOwned) as any);
    validators.set(resource, validator);
  }
  return validator;
}

export function parseDocument(resource: ResourceDef, raw: unknown): ParsedDocument {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'not an object' };
  const deleted = '_deleted' in raw && raw._deleted === true;
  const body = Object.fromEntries(Object.entries(raw).filter(([k]) => !BOOKKEEPING.includes(k)));
  const result = pushValidator(resource).safeParse(body);
  if (!result.success) {
    return { ok: false, reason: `invalid document: ${describeIssues(result.error.issues, { whole: '(document)', limit: 5 })}` };
  }
  const fields: Fields = result.data;
  const id = fields.id;
  // Every resource's id is a required string, so the validator has made sure of it.
  if (typeof id !== 'string') return { ok: false, reason: 'invalid document: id: required' };
  return { ok: true, doc: { ...withoutServerFields(resource, fields), id }, deleted };
}

function withoutServerFields(resource: ResourceDef, doc: Fields): Fields {
  const out: Fields = {};
  for (const [field, value] of Object.entries(doc)) {
    const meta = resource.fields[field]?.meta;
    if (!meta || meta.owner === 'server') continue;
    out[field] = deviceValue(meta.kind, value);
  }
  return out;
}
