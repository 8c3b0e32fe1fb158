import { createHash } from 'node:crypto';
import { z } from 'zod';
import { errors } from '../../shared/index.js';
import type { PageRows, PageWindow } from '../storage/lists/keyset.js';
import { parseInput } from './input.js';

/**
 * Cursor connections (edges { node cursor }, pageInfo) over keyset pages.
 *
 * A cursor is opaque to callers: base64url JSON of the sort-key values of a row plus a tag of the
 * list it came from (organization, list, sort). A cursor of another list, another sort or another
 * organization is rejected as BAD_USER_INPUT rather than silently starting somewhere odd.
 */

export interface Connection<T> {
  edges: { node: T; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** The largest page any list serves (the spec's limit for customers; documented for all). */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

const count = z.number().int().min(1, `must be between 1 and ${MAX_PAGE_SIZE}`).max(MAX_PAGE_SIZE, `must be between 1 and ${MAX_PAGE_SIZE}`);
const PageArgsInput = z
  .object({
    first: count.nullish(),
    after: z.string().max(2000).nullish(),
    last: count.nullish(),
    before: z.string().max(2000).nullish(),
  })
  .refine((a) => a.first == null || a.last == null, 'give first or last, not both')
  .refine((a) => a.after == null || a.before == null, 'give after or before, not both')
  .refine((a) => a.last == null || a.after == null, 'last pages backward; use it with before, not after')
  .refine((a) => a.first == null || a.before == null, 'first pages forward; use it with after, not before');

/** A list's identity for its cursors: who reads it, which list, in which order. */
export function listTag(orgId: string, list: string, sort: string): string {
  return createHash('sha256').update(`${orgId}\n${list}\n${sort}`).digest('base64url').slice(0, 12);
}

export function encodeCursor(tag: string, keys: readonly string[]): string {
  return Buffer.from(JSON.stringify({ t: tag, k: keys })).toString('base64url');
}

function decodeCursor(tag: string, cursor: string, argument: string, keyCount: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const shape = z.object({ t: z.string(), k: z.array(z.string()).length(keyCount) }).safeParse(parsed);
  if (!shape.success || shape.data.t !== tag) {
    throw errors.badInput(`${argument}: not a cursor of this list (cursors are only valid for the list, sort and organization that issued them)`, {
      fields: [argument],
    });
  }
  return shape.data.k;
}

/** Validates page arguments and turns them into the window storage reads. */
export function pageWindow(raw: PageArgs, tag: string, keyCount: number): PageWindow {
  const args = parseInput(PageArgsInput, raw);
  const backward = args.last != null || args.before != null;
  const cursor = backward ? args.before : args.after;
  return {
    size: (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE,
    from: cursor ? decodeCursor(tag, cursor, backward ? 'before' : 'after', keyCount) : null,
    backward,
  };
}

export function toConnection<T>(page: PageRows<T>, window: PageWindow, tag: string): Connection<T> {
  const edges = page.rows.map((row) => ({ node: row.record, cursor: encodeCursor(tag, row.keys) }));
  const started = window.from !== null;
  return {
    edges,
    pageInfo: {
      hasNextPage: window.backward ? started : page.more,
      hasPreviousPage: window.backward ? page.more : started,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
