import type { Database } from './storage/db.js';
import { countOrganizations } from './storage/organizations.js';
import { provisionOrganization, type ProvisionedOrganization } from './operations/organization.js';

/**
 * On the first start of an empty store, creates a demo organization so the server is usable at
 * once. Returns what it created (the caller prints the token), or null when the store had data.
 */
export async function seedDemoOrganization(db: Database): Promise<ProvisionedOrganization | null> {
  if ((await countOrganizations(db)) > 0) return null;
  return provisionOrganization(db, { name: 'Demo Pool Service' });
}
