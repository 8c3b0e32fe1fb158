import { describeIssues, recordValidator, type ResourceDef } from '../../shared/index.js';
import { badInput } from '../errors.js';

/** Checks a whole document against the shared definition before it is written locally. */
export function assertValid(resource: ResourceDef, doc: Record<string, unknown>, action: string): void {
  const result = recordValidator(resource).safeParse(doc);
  if (result.success) return;
  throw badInput(`${action}: ${describeIssues(result.error.issues, { limit: Infinity })}`);
}

export function assertPositiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw badInput(`${name} must be a whole number greater than 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

export const nowIso = () => new Date().toISOString();

/** Ids are made on the device, so nothing waits for the server. */
export const newId = () => crypto.randomUUID();
