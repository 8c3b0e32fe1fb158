import { taxResource, type Tax } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { recordTable } from './records.js';

export const taxes = recordTable(taxResource);

export async function taxExists(q: Queryable, orgId: string, id: string): Promise<boolean> {
  return (await taxes.findById(q, orgId, id)) !== null;
}

export async function listTaxes(q: Queryable, orgId: string): Promise<Tax[]> {
  const { rows } = await q.query(`select ${taxes.selectList()} from taxes where org_id = $1 order by lower(name), id`, [orgId]);
  return rows.map(taxes.toRecord);
}

export async function taxesByIds(q: Queryable, orgId: string, ids: readonly string[]): Promise<Tax[]> {
  const { rows } = await q.query(`select ${taxes.selectList()} from taxes where org_id = $1 and id = any($2::text[])`, [orgId, ids]);
  return rows.map(taxes.toRecord);
}
