import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCOPE_WINDOWS, OFFICE_AUDIENCE, reasonsIn, scopedCollections, scopeOf, type CollectionName, type ScopeHolder } from '../shared/index.js';
import { seededRandom } from '../shared/seeded-random.js';
import { provisionOrganization } from '../server/operations/organization.js';
import { SYNC_COLLECTIONS } from '../server/operations/sync/collections.js';
import type { Queryable } from '../server/storage/db.js';
import { ageScopes } from '../server/storage/scopes.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * What a technician's device holds is declared once (shared/sync/scopes.ts) and has two forms:
 * the SQL triggers that keep each technician's feed as rows are written (server/storage/scope-sql.ts),
 * and `scopeOf`, which computes it in memory from all the rows. Here both run on the same
 * generated organization, written as any writer would, then moved about one write at a time (visits
 * reassigned, customers and trucks given to someone else, quotes and visits pointed at other
 * customers, visits deleted, new visits and quotes, visits and quotes deleted for good, invoices
 * finalized, paid, reopened and voided, drafts deleted, payments taken), and must
 * agree after every step: on what each device holds, and on the counts behind the `neededBy`
 * reasons (per audience and customer, how many of its held, live visits and quotes name it).
 */
const DAY = 86_400_000;

describe.each(engines)('device scopes on %s: the triggers and the declaration agree', (engine) => {
  let store: TestStore;
  let orgId: string;
  const random = seededRandom(30);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const techs = ['tech-a', 'tech-b', 'tech-c', 'tech-d', 'tech-e', 'tech-late'];
  // tech-late is named by rows before their user exists (data imported before their token).
  const users = new Set(techs.filter((t) => t !== 'tech-late'));
  const someone = () => (random() < 0.2 ? null : random() < 0.1 ? 'office-user' : pick(techs));

  beforeAll(async () => {
    store = await openTestStore(engine);
    orgId = (await provisionOrganization(store.db, { name: 'Scope Pools' })).organization.id;
    await insert(store.db, 'users', [...[...users].map((id) => ({ id, name: id, role: 'TECHNICIAN' })), { id: 'office-user', name: 'Office', role: 'OFFICE' }]);
  });
  afterAll(async () => {
    await store?.drop();
  });

  async function insert(q: Queryable, table: string, rows: Record<string, unknown>[]): Promise<void> {
    const columns = Object.keys(rows[0]!);
    const values = rows.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 2}`).join(', ')}, $1)`);
    await q.query(`insert into ${table} (${columns.join(', ')}, org_id) values ${values.join(', ')}`, [orgId, ...rows.flatMap((row) => columns.map((c) => row[c]))]);
  }

  /** Every row of the organization, as documents (tombstones included). */
  async function everything(): Promise<Partial<Record<CollectionName, ({ id: string } & Record<string, unknown>)[]>>> {
    const out: Partial<Record<CollectionName, ({ id: string } & Record<string, unknown>)[]>> = {};
    for (const c of SYNC_COLLECTIONS) {
      const { rows } = await store.db.query<{ doc: { id: string } & Record<string, unknown> }>(
        `select row_to_json(d) as doc from ${c.resource.table} t, lateral (select ${c.table.jsonSelectList('t', '$1')}, t._deleted as "_deleted") d where t.org_id = $1`,
        [orgId],
      );
      out[c.name as CollectionName] = rows.map((r) => r.doc);
    }
    return out;
  }

  /** Per audience (each technician, and the office) and collection, the ids held: by the triggers' entries, and by the declaration. */
  async function compare(): Promise<{ sql: Record<string, string[]>; declared: Record<string, string[]>; counts: { sql: Record<string, number>; declared: Record<string, number> } }> {
    const { rows } = await store.db.query<{ audience: string; collection: string; row_id: string }>(
      'select audience, collection, row_id from scope_rows where org_id = $1 and present order by row_id',
      [orgId],
    );
    const { rows: now } = await store.db.query<{ now: Date }>('select now() as now');
    const all = await everything();
    const sql: Record<string, string[]> = {};
    const declared: Record<string, string[]> = {};
    const counts = { sql: await neededCounts(), declared: {} as Record<string, number> };
    // An office user holds no feed of their own (the office's devices share one), whatever rows
    // name them; nor has a technician whose user does not exist yet.
    expect(rows.filter((r) => !users.has(r.audience) && r.audience !== OFFICE_AUDIENCE)).toEqual([]);
    const holders: [string, ScopeHolder][] = [...[...users].map((tech) => [tech, { technician: tech }] as [string, ScopeHolder]), [OFFICE_AUDIENCE, 'office']];
    for (const [audience, holder] of holders) {
      const held = scopeOf(holder, all, DEFAULT_SCOPE_WINDOWS, new Date(now[0]!.now).getTime());
      for (const collection of scopedCollections(holder === 'office' ? 'OFFICE' : 'TECHNICIAN')) {
        const key = `${audience} ${collection}`;
        declared[key] = [...(held.get(collection) ?? [])].sort();
        sql[key] = rows.filter((r) => r.audience === audience && r.collection === collection).map((r) => r.row_id).sort();
        // Who needs each row: the live rows held that name it, per needing collection summed.
        for (const reason of reasonsIn(holder === 'office' ? 'OFFICE' : 'TECHNICIAN', collection)) {
          if (!('neededBy' in reason)) continue;
          const holding = held.get(reason.neededBy) ?? new Set();
          for (const row of all[reason.neededBy] ?? []) {
            const named = row[reason.field];
            if (!holding.has(row.id) || row._deleted || typeof named !== 'string') continue;
            const counted = `${audience} ${collection} ${named}`;
            counts.declared[counted] = (counts.declared[counted] ?? 0) + 1;
          }
        }
      }
    }
    return { sql, declared, counts };
  }

  /** The store's counts of who needs each row, as `compare` keys them. */
  async function neededCounts(): Promise<Record<string, number>> {
    const { rows } = await store.db.query<{ audience: string; collection: string; row_id: string; holders: number }>(
      'select audience, collection, row_id, holders from scope_needs where org_id = $1',
      [orgId],
    );
    return Object.fromEntries(rows.map((r) => [`${r.audience} ${r.collection} ${r.row_id}`, r.holders]));
  }

  it('on a generated organization, then after each of 150 moves', async () => {
    const now = Date.now();
    const customers = Array.from({ length: 40 }, (_, i) => ({
      id: `c${i}`,
      last_name: `Customer ${i}`,
      service: random() < 0.4 ? JSON.stringify({ technicianId: someone() }) : null,
    }));
    const visits = Array.from({ length: 240 }, (_, i) => ({
      id: `v${i}`,
      customer_id: random() < 0.9 ? pick(customers).id : null,
      new_technician_id: someone(),
      new_secondary_technician_id: random() < 0.2 ? someone() : null,
      created_by_id: someone(),
      // Either side of the 60-day window, some far ahead, some without a start.
      start_time: random() < 0.15 ? null : new Date(now + (random() - 0.6) * 150 * DAY).toISOString(),
      _deleted: random() < 0.05,
    }));
    const quotes = Array.from({ length: 30 }, (_, i) => ({
      id: `q${i}`, number: `Q-${i}`, title: 'Quote', customer_id: pick(customers).id, status: 'DRAFT', subtotal: 0, tax: 0, total: 0, created_by_id: someone(),
    }));
    const locations = Array.from({ length: 8 }, (_, i) => ({ id: `l${i}`, name: `Location ${i}`, technician_id: i === 0 ? null : someone() }));
    const items = Array.from({ length: 5 }, (_, i) => ({ id: `i${i}`, name: `Item ${i}`, category: 'CHEMICAL', unit_price: 1, is_active: true }));
    const levels = locations.flatMap((l) => items.filter(() => random() < 0.6).map((item) => ({ id: `s-${l.id}-${item.id}`, item_id: item.id, location_id: l.id, quantity: 3 })));
    const movements = Array.from({ length: 60 }, (_, i) => ({
      id: `m${i}`, item_id: pick(items).id, location_id: pick(locations).id, to_location_id: random() < 0.2 ? pick(locations).id : null,
      delta: -1, reason: 'USE', created_by_id: someone(),
    }));
    const appointments = Array.from({ length: 20 }, (_, i) => ({ id: `a${i}`, customer_id: pick(customers).id, technician_id: someone(), start_time: new Date(now).toISOString(), status: 'SCHEDULED' }));
    const invoiceStatuses = ['DRAFT', 'OPEN', 'OPEN', 'PAID', 'VOID'] as const;
    const invoiceRow = (id: string, status: string) => ({
      id, customer_id: pick(customers).id, status, number: status === 'DRAFT' ? null : `INV-${id}`, origin: 'MANUAL', currency: 'USD',
      subtotal: 1000, tax: 0, total: 1000, amount_paid: status === 'PAID' ? 1000 : 0, balance_due: status === 'PAID' ? 0 : 1000, tax_rounding: 'PER_INVOICE',
    });
    const invoices = Array.from({ length: 30 }, (_, i) => invoiceRow(`inv${i}`, pick(invoiceStatuses)));
    const paymentRow = (id: string) => ({
      id, customer_id: pick(customers).id, kind: 'PAYMENT', amount: 500, currency: 'USD', method: 'CASH', received_at: new Date(now).toISOString(), created_by_id: someone(),
      created_at: new Date(now - random() * 30 * DAY).toISOString(),
    });
    const payments = Array.from({ length: 30 }, (_, i) => paymentRow(`pay${i}`));
    await store.db.transaction(async (tx) => {
      await insert(tx, 'customers', customers);
      await insert(tx, 'services', visits);
      await insert(tx, 'quotes', quotes);
      await insert(tx, 'inventory_locations', locations);
      await insert(tx, 'inventory_items', items);
      await insert(tx, 'stock_levels', levels);
      await insert(tx, 'stock_movements', movements);
      await insert(tx, 'appointments', appointments);
      await insert(tx, 'invoices', invoices);
      await insert(tx, 'payments', payments);
    });
    let { sql, declared, counts } = await compare();
    expect(sql).toEqual(declared);
    expect(counts.sql).toEqual(counts.declared);
    expect(Object.keys(counts.sql).length, 'customers held because visits and quotes need them').toBeGreaterThan(20);
    // The generated organization gives every kind of reason something to hold.
    for (const c of scopedCollections('TECHNICIAN')) expect(techs.some((t) => sql[`${t} ${c}`]!.length > 0), c).toBe(true);
    for (const c of scopedCollections('OFFICE')) expect(sql[`${OFFICE_AUDIENCE} ${c}`]!.length, `the office holds some ${c}`).toBeGreaterThan(0);

    const moves: [string, () => Promise<unknown>][] = [
      ['visit reassigned', () => store.db.query('update services set new_technician_id = $2 where org_id = $1 and id = $3', [orgId, someone(), pick(visits).id])],
      ['secondary changed', () => store.db.query('update services set new_secondary_technician_id = $2 where org_id = $1 and id = $3', [orgId, someone(), pick(visits).id])],
      ['visit for another customer', () => store.db.query('update services set customer_id = $2 where org_id = $1 and id = $3', [orgId, pick(customers).id, pick(visits).id])],
      ['visit moved in time', () => store.db.query('update services set start_time = $2 where org_id = $1 and id = $3', [orgId, new Date(now + (random() - 0.6) * 150 * DAY), pick(visits).id])],
      ['visit deleted or restored', () => store.db.query('update services set _deleted = not _deleted where org_id = $1 and id = $2', [orgId, pick(visits).id])],
      ['customer assigned', () => store.db.query(`update customers set service = jsonb_build_object('technicianId', $2::text) where org_id = $1 and id = $3`, [orgId, someone(), pick(customers).id])],
      ['quote for another customer', () => store.db.query('update quotes set customer_id = $2 where org_id = $1 and id = $3', [orgId, pick(customers).id, pick(quotes).id])],
      ['truck given to someone', () => store.db.query('update inventory_locations set technician_id = $2 where org_id = $1 and id = $3', [orgId, someone(), pick(locations).id])],
      ['appointment reassigned', () => store.db.query('update appointments set technician_id = $2 where org_id = $1 and id = $3', [orgId, someone(), pick(appointments).id])],
      ['two visits in one statement', () => store.db.query('update services set new_technician_id = $2 where org_id = $1 and id = any($3)', [orgId, someone(), [pick(visits).id, pick(visits).id]])],
      ['a new visit', () => insert(store.db, 'services', [{ id: `v-new-${++added}`, customer_id: pick(customers).id, new_technician_id: someone(), start_time: new Date(now).toISOString() }])],
      ['a new quote', () => insert(store.db, 'quotes', [{ ...pick(quotes), id: `q-new-${++added}`, number: `Q-new-${added}`, customer_id: pick(customers).id, created_by_id: someone() }])],
      ['visits deleted for good', () => store.db.query('delete from services where org_id = $1 and id = any($2)', [orgId, [pick(visits).id, pick(visits).id]])],
      ['a quote deleted for good', () => store.db.query('delete from quotes where org_id = $1 and id = $2', [orgId, pick(quotes).id])],
      ['an invoice paid or reopened', () => store.db.query(`update invoices set status = case status when 'OPEN' then 'PAID' else 'OPEN' end, amount_paid = case status when 'OPEN' then total else 0 end, balance_due = case status when 'OPEN' then 0 else total end where org_id = $1 and id = $2 and status in ('OPEN', 'PAID')`, [orgId, pick(invoices).id])],
      ['an invoice finalized or voided', () => store.db.query(`update invoices set status = case status when 'DRAFT' then 'OPEN' else 'VOID' end, number = coalesce(number, 'INV-' || id) where org_id = $1 and id = $2 and status in ('DRAFT', 'OPEN')`, [orgId, pick(invoices).id])],
      ['a new invoice', () => insert(store.db, 'invoices', [invoiceRow(`inv-new-${++added}`, 'OPEN')])],
      ['a draft deleted', () => store.db.query(`delete from invoices where org_id = $1 and id = $2 and status = 'DRAFT'`, [orgId, pick(invoices).id])],
      ['a payment taken', () => insert(store.db, 'payments', [paymentRow(`pay-new-${++added}`)])],
    ];
    let added = 0;
    for (let i = 0; i < 150; i++) {
      if (i === 75) {
        await insert(store.db, 'users', [{ id: 'tech-late', name: 'Late', role: 'TECHNICIAN' }]);
        users.add('tech-late');
        ({ sql, declared, counts } = await compare());
        expect(sql, 'once the late technician exists').toEqual(declared);
        expect(counts.sql, 'once the late technician exists').toEqual(counts.declared);
        expect(scopedCollections('TECHNICIAN').some((c) => sql[`tech-late ${c}`]!.length > 0)).toBe(true);
      }
      const [what, move] = pick(moves);
      await move();
      ({ sql, declared, counts } = await compare());
      expect(sql, `after move ${i + 1} (${what})`).toEqual(declared);
      expect(counts.sql, `counts after move ${i + 1} (${what})`).toEqual(counts.declared);
    }

    // Recomputing everything from scratch changes nothing: what the triggers kept is what the rules say.
    const entries = 'select audience, collection, row_id, seq, present, needs from scope_rows where org_id = $1 order by 1, 2, 3';
    const before = await store.db.query(entries, [orgId]);
    const countsBefore = await neededCounts();
    await store.db.query('select scope_rebuild($1)', [orgId]);
    expect((await store.db.query(entries, [orgId])).rows).toEqual(before.rows);
    expect(await neededCounts()).toEqual(countsBefore);
  });

  it('counts gone wrong (a write made with the triggers off) are made right by the rebuild', async () => {
    const { rows } = await store.db.query<{ id: string; customer_id: string }>(
      'select id, customer_id from services where org_id = $1 and not _deleted and customer_id is not null order by id limit 3',
      [orgId],
    );
    await store.db.transaction(async (tx) => {
      await tx.exec('set local session_replication_role = replica');
      // A visit moved to another customer behind the triggers' back, counts lost and invented.
      await tx.query(`update services set customer_id = $2 where org_id = $1 and id = $3`, [orgId, rows[1]!.customer_id === 'c0' ? 'c1' : 'c0', rows[0]!.id]);
      await tx.query(`update scope_needs set holders = holders + 3 where org_id = $1 and row_id = $2`, [orgId, rows[1]!.customer_id]);
      await tx.query(`delete from scope_needs where org_id = $1 and row_id = $2`, [orgId, rows[2]!.customer_id]);
      await tx.query(`insert into scope_needs (org_id, collection, row_id, audience, holders) values ($1, 'customers', 'c-nobody', '@office', 2)`, [orgId]);
    });
    let { counts } = await compare();
    expect(counts.sql).not.toEqual(counts.declared);
    await store.db.query('select scope_rebuild($1)', [orgId]);
    const after = await compare();
    expect(after.sql).toEqual(after.declared);
    ({ counts } = after);
    expect(counts.sql).toEqual(counts.declared);
  });

  it('as time passes: rows that left a window leave the devices, and the rest stay', async () => {
    // Time passes for some rows (written with the stamping triggers off, as rows written weeks
    // ago would stand): visits whose day is now three weeks or four months back, customers last
    // changed three weeks ago.
    const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
    const { rows: visits } = await store.db.query<{ id: string }>('select id from services where org_id = $1 and not _deleted and start_time > now() - interval \'10 days\' order by id limit 12', [orgId]);
    // A customer the office signed up, with no visit or quote yet: held for being new.
    await insert(store.db, 'customers', [{ id: 'c-new', last_name: 'Signed up' }]);
    expect((await compare()).sql[`${OFFICE_AUDIENCE} customers`]).toContain('c-new');
    const { rows: customers } = await store.db.query<{ id: string }>('select id from customers where org_id = $1 order by id', [orgId]);
    await store.db.transaction(async (tx) => {
      await tx.exec("set local session_replication_role = replica");
      for (const [i, v] of visits.entries()) await tx.query('update services set start_time = $3 where org_id = $1 and id = $2', [orgId, v.id, ago(i % 2 ? 21 : 120)]);
      await tx.query('update customers set updated_at = $2 where org_id = $1', [orgId, ago(21)]);
    });
    const before = await store.db.query<{ n: number }>("select count(*)::int as n from scope_rows where org_id = $1 and audience = '@office' and collection = 'customers' and present", [orgId]);
    expect(before.rows[0]!.n, 'every customer was recent').toBe(customers.length);

    await ageScopes(store.db, null);
    const { sql, declared, counts } = await compare();
    expect(sql).toEqual(declared);
    expect(counts.sql).toEqual(counts.declared);
    const officeVisits = new Set(sql[`${OFFICE_AUDIENCE} services`]);
    expect(visits.filter((v) => officeVisits.has(v.id)), 'no visit three weeks back stays in the office window').toEqual([]);
    expect(sql[`${OFFICE_AUDIENCE} customers`], 'three weeks on, a customer with no visit or quote is not the office\'s to hold').not.toContain('c-new');
    // A technician's 60 days still hold the visits three weeks back; four months back, not.
    const held = new Set(techs.flatMap((t) => sql[`${t} services`] ?? []));
    const threeWeeks = visits.filter((_, i) => i % 2);
    expect(threeWeeks.some((v) => held.has(v.id))).toBe(true);
    expect(visits.filter((_, i) => !(i % 2)).filter((v) => held.has(v.id))).toEqual([]);
    // Ageing again changes nothing.
    const entries = await store.db.query('select audience, collection, row_id, seq, present from scope_rows where org_id = $1 order by 1, 2, 3', [orgId]);
    await ageScopes(store.db, null);
    expect((await store.db.query('select audience, collection, row_id, seq, present from scope_rows where org_id = $1 order by 1, 2, 3', [orgId])).rows).toEqual(entries.rows);
  });
});
