import { taxResource } from '../../shared/index.js';
import type { Queryable } from './db.js';
import { recordTable } from './records.js';

export const taxes = recordTable(taxResource);

export async function taxExists(q: Queryable, orgId: string, id: string): Promise<boolean> {
  return (await taxes.findById(q, orgId, id)) !== null;
}
