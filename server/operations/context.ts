import { errors, type Role } from '../../shared/index.js';
import type { BlobStore } from '../storage/blobs.js';
import type { Database } from '../storage/db.js';

/** Who is calling: resolved from the bearer token by operations/auth.ts. */
export interface Viewer {
  userId: string;
  orgId: string;
  role: Role;
  tokenId: string;
}

/** What every operation receives. Transports build it once per request. */
export type OperationContext = {
  db: Database;
  blobs: BlobStore;
  viewer: Viewer;
};

/** Roles that administer the business's data (third-party API tokens act like the office). */
/** The office's roles (shared with the sync rules). */
export { OFFICE_ROLES } from '../../shared/index.js';

/** Throws FORBIDDEN unless the viewer has one of the roles. */
export function requireRole(viewer: Viewer, roles: readonly Role[], action: string): void {
  if (!roles.includes(viewer.role)) {
    throw errors.forbidden(`Role ${viewer.role} may not ${action} (needs ${roles.join(' or ')})`);
  }
}
