import type { z } from 'zod';
import { describeIssues, errors } from '../../shared/index.js';

/**
 * Validates an operation's untrusted input against its schema. Every operation calls this first,
 * so GraphQL and REST share one set of rules and a bad request changes nothing.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw errors.badInput(`Invalid input: ${describeIssues(result.error.issues, { whole: '', limit: Infinity })}`, {
    fields: result.error.issues.map((i) => i.path.join('.')),
  });
}
