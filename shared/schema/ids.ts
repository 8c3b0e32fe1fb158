import * as z from 'zod';

/**
 * The rule every record id follows (`f.id()`: a record's own id and every reference to one),
 * checked wherever a value enters: GraphQL inputs, REST bodies, sync pushes and the SDK's local
 * writes all use the validator below, so each refuses a bad id in the same words.
 *
 * 1-128 characters from the URL-unreserved set: A-Z a-z 0-9 - . _ ~. UUIDs, ULIDs, nanoids and
 * base64url ids fit; an id then appears as itself in a URL path, an object key, a log line and a
 * CSV cell, and it always fits a database index (a 10 KB id made PostgreSQL refuse the row:
 * "index row requires 10304 bytes"). 128 is also the bound RxDB's schema puts on a primary key.
 */
export const ID_MAX_LENGTH = 128;

export const ID_RULE = `must be 1-${ID_MAX_LENGTH} characters of A-Z a-z 0-9 - . _ ~`;

const ID_PATTERN = new RegExp(`^[A-Za-z0-9._~-]{1,${ID_MAX_LENGTH}}$`);

/** True when `value` is an id by the rule. */
export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/** The zod form of the rule (one check, so a bad id is told once). */
export const idValidator = (): z.ZodString => z.string().regex(ID_PATTERN, ID_RULE);
