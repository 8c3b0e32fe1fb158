import type { Queryable } from './db.js';

/**
 * How many phones will make their first sync of the day at once: the technicians with a phone (a
 * TECHNICIAN token still in use: unrevoked, and used or created within the idle days after which
 * it expires), over every organization of the store, since one server process serves them all.
 * That count is what the morning's cost follows: most of what a phone pulls is the same for every
 * phone (the item catalog, the warehouse's stock), its own route a fifth of it.
 *
 * One statement over the users and their tokens (small tables): cheap enough to run at start and
 * now and then after.
 */
export async function activeTechnicians(q: Queryable, options: { tokenIdleDays: number }): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `select count(*)::int as n from users u
      where u.role = 'TECHNICIAN'
        and exists (select 1 from api_tokens t
                     where t.org_id = u.org_id and t.user_id = u.id and t.revoked_at is null
                       and coalesce(t.last_used_at, t.created_at) > now() - make_interval(days => $1::int))`,
    [options.tokenIdleDays],
  );
  return rows[0]!.n;
}
