import { organizationResource, type Organization } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { recordTable } from './records.js';

/** The organizations table: the generic record access plus what provisioning needs. */
export const organizations = recordTable(organizationResource);

/** Serializes provisioning so two concurrent sign-ups cannot pick the same slug. */
const PROVISIONING_LOCK_KEY = 7_406_114;

export async function lockProvisioning(tx: Queryable): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1)', [PROVISIONING_LOCK_KEY]);
}

/** Slugs already taken among `base` and `base-N`. */
export async function takenSlugs(q: Queryable, base: string): Promise<Set<string>> {
  const { rows } = await q.query<{ slug: string }>(
    `select slug from organizations where slug = $1 or slug like $2`,
    [base, `${base.replace(/[\\%_]/g, '\\$&')}-%`],
  );
  return new Set(rows.map((r) => r.slug));
}

/** Inserts an organization; its org_id is its own id. */
export async function insertOrganization(
  q: Queryable,
  values: Omit<Organization, 'createdAt' | 'updatedAt'>,
): Promise<Organization> {
  return organizations.insert(q, values.id, values);
}

export async function countOrganizations(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>('select count(*)::int8 as n from organizations');
  return rows[0]!.n;
}
