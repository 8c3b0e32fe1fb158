import { describe, expect, it } from 'vitest';
import { deviceMayWrite, SYNC_RULES } from '../shared/index.js';
import { READ_ONLY_COLLECTIONS } from '../client-sdk/replica/database.js';
import { SYNC_COLLECTIONS } from '../server/operations/sync/collections.js';

/**
 * The sync rules are written once (shared/sync/rules.ts) and each end reads them (what each
 * device holds, the scopes, is test/sync-scopes.pg.test.ts).
 */
describe('the sync rules are read, not copied', () => {
  it('the server’s collections take kind, writers and references from the shared rules', () => {
    for (const c of SYNC_COLLECTIONS) {
      const rule = SYNC_RULES[c.name]!;
      expect({ kind: c.kind, writers: c.writers, references: c.references.map((r) => ({ field: r.field, what: r.what, table: r.table.resource.table })) }).toEqual({
        kind: rule.kind,
        writers: rule.writers,
        references: rule.references.map((r) => ({ field: r.field, what: r.what, table: SYNC_COLLECTIONS.find((x) => x.name === r.collection)!.resource.table })),
      });
    }
    expect(SYNC_COLLECTIONS.map((c) => c.name).sort()).toEqual(Object.keys(SYNC_RULES).sort());
  });

  it('the SDK refuses locally exactly what the kinds forbid', () => {
    expect([...READ_ONLY_COLLECTIONS].sort()).toEqual(['invoices', 'organization', 'serviceTypes', 'stockLevels']);
    expect(['insert', 'change', 'delete'].map((w) => deviceMayWrite('stockMovements', w as never))).toEqual([true, false, false]);
    expect(['insert', 'change', 'delete'].map((w) => deviceMayWrite('payments', w as never))).toEqual([true, false, false]);
    expect(['insert', 'change', 'delete'].map((w) => deviceMayWrite('invoices', w as never))).toEqual([false, false, false]);
    expect(deviceMayWrite('customers', 'delete')).toBe(true);
    expect(deviceMayWrite('stockLevels', 'insert')).toBe(false);
    expect(deviceMayWrite('nothing', 'insert')).toBe(false);
  });
});
