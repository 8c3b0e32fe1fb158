import * as z from 'zod';

/**
 * Limits on JSON, checked by walking it with a stack of our own (never recursion) before anything
 * that recurses sees it: zod's JSON check, JSON.stringify, PostgreSQL's jsonb parser. A value
 * nested 10,000 levels crashed each of them ("Maximum call stack size exceeded"), and one such
 * pushed row took its whole batch down.
 *
 * - `FREE_JSON_LIMITS`: a field that holds free-form JSON (`f.json()`: a customer's
 *   `customFields`), checked by its derived validator everywhere it is written.
 * - `MAX_JSON_NESTING`: any JSON the server reads (request bodies, GraphQL JSON values, each
 *   pushed row). Far above what any document of ours nests (a customer with its custom fields is
 *   about 35 levels), far below what breaks a parser.
 */
export const FREE_JSON_LIMITS = { depth: 32, bytes: 65_536 } as const;

export const MAX_JSON_NESTING = 64;

export interface JsonLimits {
  /** Most levels of objects and arrays inside one another (`{}` is 1, `{"a": []}` is 2). */
  depth: number;
  /** Most bytes the value may take as JSON text (counted as characters, escapes aside). */
  bytes?: number;
}

/** Why `value` breaks the limits ("nested deeper than 32 levels"), or null when it is within them. */
export function jsonLimitProblem(value: unknown, limits: JsonLimits): string | null {
  const maxBytes = limits.bytes ?? Infinity;
  const pending: [unknown, number][] = [[value, 0]];
  let bytes = 0;
  while (pending.length) {
    const [node, level] = pending.pop()!;
    if (node === null || typeof node !== 'object') {
      bytes += scalarBytes(node);
    } else {
      if (level >= limits.depth) return `nested deeper than ${limits.depth} levels`;
      const children = Array.isArray(node) ? node : Object.entries(node);
      bytes += 2 + Math.max(0, children.length - 1);
      for (const child of children) {
        if (Array.isArray(node)) pending.push([child, level + 1]);
        else {
          const [key, inner] = child as [string, unknown];
          bytes += key.length + 3;
          pending.push([inner, level + 1]);
        }
      }
    }
    if (bytes > maxBytes) return `larger than ${maxBytes} bytes as JSON`;
  }
  return null;
}

function scalarBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  return value === null ? 4 : 0;
}

/**
 * The validator of a free-form JSON field: the limits first, then zod's JSON check (which
 * recurses, so it only ever sees a value within them).
 */
export function freeJsonValidator(): z.ZodType {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const problem = jsonLimitProblem(value, FREE_JSON_LIMITS);
      if (problem) ctx.addIssue({ code: 'custom', message: `${problem} (the limit of free-form JSON)` });
    })
    .pipe(z.json());
}
