import { f } from '../schema/fields.js';
import { defineResource, type RecordOf } from '../schema/resource.js';

export const ROLES = ['ADMIN', 'OFFICE', 'TECHNICIAN', 'API'] as const;
export type Role = (typeof ROLES)[number];

/** A person or integration acting in exactly one organization. */
export const userResource = defineResource({
  name: 'User',
  table: 'users',
  collection: null,
  fields: {
    name: f.string().max(200),
    email: f.string().nullable().max(320),
    role: f.enum('Role', ROLES),
  },
});
export type User = RecordOf<typeof userResource>;

/**
 * A bearer credential of one user. Only its SHA-256 hash is stored; the token itself is shown
 * once, when it is created.
 */
export const apiTokenResource = defineResource({
  name: 'ApiToken',
  table: 'api_tokens',
  collection: null,
  fields: {
    name: f.string().max(200),
    userId: f.id(),
    lastUsedAt: f.dateTime().nullable(),
    revokedAt: f.dateTime().nullable(),
  },
  relations: { role: 'Role!' },
});
export type ApiToken = RecordOf<typeof apiTokenResource>;
