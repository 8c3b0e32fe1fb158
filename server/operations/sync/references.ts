import { isValidId } from '../../../shared/index.js';
import type { Queryable } from '../../storage/db.js';
import { existingIdsOf } from '../../storage/records.js';

/** What a reference check needs of a table (any resource's record table has it). */
export interface ReferencedTable {
  resource: { table: string; collection: string | null };
  findById(q: Queryable, orgId: string, id: string): Promise<unknown>;
}

/**
 * Existence checks of referenced records (a visit's customer, a movement's item) for one push:
 * the ids a batch mentions are loaded in one query for every table, not one per row.
 */
export class References {
  private readonly known = new Map<string, Set<string>>();

  constructor(
    private readonly tx: Queryable,
    private readonly orgId: string,
  ) {}

  /**
   * The ids a batch names, every table at once (one statement). Only ids by the rule are looked
   * for: anything else fails validation and is never asked about.
   */
  async prefetch(lookups: readonly { table: ReferencedTable; ids: readonly unknown[] }[]): Promise<void> {
    const wanted = lookups.map(({ table, ids }) => ({ table, ids: [...new Set(ids.filter(isValidId))] }));
    const found = await existingIdsOf(this.tx, this.orgId, wanted);
    wanted.forEach(({ table }, i) => {
      const name = table.resource.table;
      const set = this.known.get(name) ?? new Set<string>();
      for (const id of found[i]!) set.add(id);
      this.known.set(name, set);
    });
  }

  async exists(table: ReferencedTable, id: string): Promise<boolean> {
    if (this.known.get(table.resource.table)?.has(id)) return true;
    return (await table.findById(this.tx, this.orgId, id)) !== null;
  }
}
