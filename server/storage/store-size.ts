import type { Queryable } from './db.js';

/**
 * How much a morning's first syncs will ask of the store, in the two figures an operator knows
 * their company by: the technicians whose phones sync (a technician with a token still in use:
 * unrevoked, and used or created within the idle days after which it expires), and the visits
 * the devices hold (not deleted, from the technicians' window on, future ones included). Summed
 * over every organization of the store: one server process serves them all at once.
 *
 * One statement over the users, their tokens and the visits' start times: tens of milliseconds
 * on a store of 50,000 visits, cheap enough to run at start and now and then after.
 */
export interface StoreSize {
  technicians: number;
  visits: number;
}

export async function storeSize(q: Queryable, options: { windowDays: number; tokenIdleDays: number }): Promise<StoreSize> {
  const { rows } = await q.query<StoreSize>(
    `select
       (select count(*)::int from users u
         where u.role = 'TECHNICIAN'
           and exists (select 1 from api_tokens t
                        where t.org_id = u.org_id and t.user_id = u.id and t.revoked_at is null
                          and coalesce(t.last_used_at, t.created_at) > now() - make_interval(days => $2::int))) as technicians,
       (select count(*)::int from services s
         where not s._deleted
           and coalesce(s.start_time, s.created_at) >= now() - make_interval(days => $1::int)) as visits`,
    [options.windowDays, options.tokenIdleDays],
  );
  return rows[0]!;
}
