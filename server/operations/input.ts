import type { z } from 'zod';
import { errors } from '../../shared/index.js';

/**
 * Validates an operation's untrusted input against its schema. Every operation calls this first,
 * so GraphQL and REST share one set of rules and a bad request changes nothing.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return `${where}${issue.message}`;
  });
  throw errors.badInput(`Invalid input: ${problems.join('; ')}`, {
    fields: result.error.issues.map((i) => i.path.join('.')),
  });
}
