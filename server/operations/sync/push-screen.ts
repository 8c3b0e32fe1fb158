import { createHash } from 'node:crypto';
import { z } from 'zod';
import { describeIssues, errors, ID_MAX_LENGTH, ID_RULE, isValidId, jsonLimitProblem, MAX_JSON_NESTING, MAX_PUSH_ROWS, PushRow } from '../../../shared/index.js';
import { parseInput } from '../input.js';
import { type Doc } from './doc.js';
import type { Row } from './push-run.js';

/**
 * The first look at a push, before anything reads, stores or walks its rows.
 *
 * The protocol's own parts fail the request (400, nothing applied), as a client speaking the
 * protocol wrong must hear it and keep its documents: not an array of at most MAX_PUSH_ROWS rows,
 * a row not naming its document by a string id (the answer names documents by id), a malformed
 * change id or list of earlier states.
 *
 * What is wrong with a document is that row's problem alone, refused (with the server state) or
 * quarantined (with a tombstone) while the rest apply: nesting deeper than MAX_JSON_NESTING
 * anywhere in the row (zod, JSON.stringify and jsonb's parser all recurse: such a row is never
 * walked further), an id that breaks the id rule (a 10 KB id cannot be indexed, a NUL cannot be
 * stored), a `_deleted` that is not a boolean (taken for false, it made a deletion a write).
 */
export interface ScreenedPush {
  rows: Row[];
  /** The rows that may not be applied, and why. */
  problems: Map<Row, string>;
}

const Rows = z.array(z.unknown()).max(MAX_PUSH_ROWS);
const Identified = z.object({ newDocumentState: z.object({ id: z.string().min(1, 'needs an id') }).catchall(z.unknown()) });

export function screenPush(raw: unknown): ScreenedPush {
  const rows: Row[] = [];
  const problems = new Map<Row, string>();
  parseInput(Rows, raw).forEach((value, index) => {
    const named = parseRowAt(Identified, value, index);
    const nesting = jsonLimitProblem(value, { depth: MAX_JSON_NESTING });
    // Too deep to walk: kept as far as it can be answered, its document's id.
    const row: Row = nesting ? { newDocumentState: named.newDocumentState } : parseRowAt(PushRow, value, index);
    const problem = nesting ? `the row is ${nesting}: the server reads no deeper` : documentProblem(row.newDocumentState);
    rows.push(row);
    if (problem) problems.set(row, problem);
  });
  return { rows, problems };
}

/** The row parsed by the protocol's schema, or the request refused naming the row's field. */
function parseRowAt<S extends z.ZodType>(schema: S, value: unknown, index: number): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ ...i, path: [index, ...i.path] }));
  throw errors.badInput(`Invalid input: ${describeIssues(issues, { whole: '' })}`, { fields: issues.map((i) => i.path.join('.')) });
}

function documentProblem(doc: Row['newDocumentState']): string | null {
  if (!isValidId(doc.id)) return `invalid document: id: ${ID_RULE}`;
  if ('_deleted' in doc && typeof doc._deleted !== 'boolean') return 'invalid document: _deleted: must be true or false';
  return null;
}

/**
 * Can this id be looked up? Any string short enough for an index and free of NUL (which text
 * cannot hold): rows that break the id rule are not applied, but a record stored before the rule
 * is still answered with its server state rather than a tombstone.
 */
export function canLookUp(id: string): boolean {
  return id.length <= ID_MAX_LENGTH && !id.includes('\u0000');
}

/** The document id a quarantine entry is filed under: the id itself, or a digest of one that breaks the rule. */
export function quarantineIdOf(id: string): string {
  return isValidId(id) ? id : `invalid-id-${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

/** What of a refused document can be kept and sent back: itself, or only its id when it nests too deep to handle. */
export function keepableDocument(doc: Doc): Doc {
  return jsonLimitProblem(doc, { depth: MAX_JSON_NESTING }) ? { id: doc.id } : doc;
}
