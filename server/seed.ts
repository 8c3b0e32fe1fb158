import type { BlobStore } from './storage/blobs.js';
import type { Database } from './storage/db.js';
import { countOrganizations } from './storage/organizations.js';
import { provisionOrganization, type ProvisionedOrganization } from './operations/organization.js';
import { addDemoData, type DemoData, type DemoOptions } from './demo-data.js';

/**
 * On the first start of an empty store, creates a demo organization with sample data so the
 * server and the office app are usable at once. Returns what it created (the caller prints the
 * token), or null when the store had data. `options.now` sets the day the sample week is made
 * around (tests; the clock otherwise).
 */
export async function seedDemoOrganization(
  db: Database,
  blobs: BlobStore,
  options: DemoOptions = {},
): Promise<(ProvisionedOrganization & { data: DemoData }) | null> {
  if ((await countOrganizations(db)) > 0) return null;
  const demo = await provisionOrganization(db, { name: 'Demo Pool Service' });
  const viewer = { orgId: demo.organization.id, userId: demo.apiToken.userId, role: 'ADMIN' as const, tokenId: demo.apiToken.id };
  const data = await addDemoData({ db, blobs, viewer }, options);
  return { ...demo, data };
}
