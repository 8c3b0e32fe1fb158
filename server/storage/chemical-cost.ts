import type { Queryable } from './db.js';
import { Params } from './lists/params.js';
import { moneyOut } from './money-sql.js';

/**
 * Chemicals used on visits, per customer and item, for a period of visit start times: the units
 * of every movement on a visit but transfers (uses, and the corrections that return stock), for
 * items in the CHEMICAL category or booked as doses, with the item's cost price. Read by customer
 * in batches, so an export of every pool streams.
 */
export interface ChemicalUseRow {
  customerId: string;
  customerName: string;
  itemId: string;
  itemName: string;
  /** The chemical the item was dosed as (any of its dose movements), or null. */
  chemical: string | null;
  unit: string | null;
  units: number;
  unitCost: number | null;
  /** units x unitCost, exact (numeric); null without a cost price. */
  cost: number | null;
}

export interface ChemicalUseQuery {
  from: string;
  to: string;
  customerId?: string | null;
  /** Only customers after this id (a batch's seek), and at most `customers` of them. */
  afterCustomerId?: string | null;
  customers?: number | null;
}

export async function chemicalUse(q: Queryable, orgId: string, query: ChemicalUseQuery): Promise<ChemicalUseRow[]> {
  const p = new Params([orgId]);
  // The visits' range is written against the expression of the start-time index.
  const where = [
    's.org_id = $1',
    `coalesce(s.start_time, '-infinity'::timestamptz) >= ${p.add(query.from)}::timestamptz`,
    `coalesce(s.start_time, '-infinity'::timestamptz) < ${p.add(query.to)}::timestamptz`,
    's.customer_id is not null',
  ];
  if (query.customerId) where.push(`s.customer_id = ${p.add(query.customerId)}`);
  if (query.afterCustomerId) where.push(`s.customer_id > ${p.add(query.afterCustomerId)}`);
  // A visit's chemicals: its movements but transfers, of CHEMICAL items or booked as doses.
  const chemicals = `services s
    join stock_movements m on m.org_id = s.org_id and m.service_id = s.id and m.reason <> 'TRANSFER'
    join inventory_items i on i.org_id = m.org_id and i.id = m.item_id and (i.category = 'CHEMICAL' or m.dose is not null)`;
  // A batch is the next customers (by id) with something used in the period.
  const batch = query.customers
    ? `batch as (select distinct s.customer_id from ${chemicals} where ${where.join(' and ')} order by 1 limit ${p.add(query.customers)}),`
    : '';
  const inBatch = query.customers ? 'and s.customer_id in (select customer_id from batch)' : '';
  const { rows } = await q.query<ChemicalUseRow>(
    `with ${batch} used as (
       select s.customer_id, m.item_id, max(m.dose ->> 'chemical') as chemical, -sum(m.delta)::integer as units
         from ${chemicals}
        where ${where.join(' and ')} ${inBatch}
        group by s.customer_id, m.item_id)
     select u.customer_id as "customerId", trim(concat_ws(' ', c.first_name, c.last_name)) as "customerName",
            u.item_id as "itemId", i.name as "itemName", u.chemical, i.unit, u.units,
            ${moneyOut('i.cost_price', '$1')} as "unitCost", ${moneyOut('u.units * i.cost_price', '$1')} as cost
       from used u
       join inventory_items i on i.org_id = $1 and i.id = u.item_id
       left join customers c on c.org_id = $1 and c.id = u.customer_id
      order by u.customer_id, i.name, u.item_id`,
    p.values,
  );
  return rows;
}
