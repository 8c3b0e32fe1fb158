import { randomUUID } from 'node:crypto';

/** Server-generated record id. Devices generate their own ids for records they create. */
export const newId = (): string => randomUUID();
