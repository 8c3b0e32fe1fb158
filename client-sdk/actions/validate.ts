import { badInput } from '../errors.js';

export function assertPositiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw badInput(`${name} must be a whole number greater than 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

export const nowIso = () => new Date().toISOString();

/** Ids are made on the device, so nothing waits for the server. */
export const newId = () => crypto.randomUUID();
