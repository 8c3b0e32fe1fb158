/**
 * Zero's schema of the workload's one table, `visits`, and its read permission: read by both
 * `zero-deploy-permissions --schema-path` (which imports this module) and the devices.
 *
 * The columns are the workload's fields as the bench found them (zero.ts writes them to the
 * JSON file named by BENCH_ZERO_COLUMNS, `[{ name, type }]`, `id` first): every field a column of
 * its own, objects and lists as `json`, every one but `id` nullable, so a row holds a visit field
 * for field as the other peers' documents do.
 *
 * The devices query the table directly (`z.query.visits`), which Zero 1.9 calls legacy queries
 * (`enableLegacyQueries`), allowed by the deployed permissions: its newer synced queries need an
 * API server of the app's to resolve each query by name, a hop the other peers do not have.
 */
import { readFileSync } from 'node:fs';
import { ANYONE_CAN, boolean, createSchema, definePermissions, json, number, string, table } from '@rocicorp/zero';

const file = process.env.BENCH_ZERO_COLUMNS;
if (!file) throw new Error('BENCH_ZERO_COLUMNS must name the JSON file of the columns');
const columns = JSON.parse(readFileSync(file, 'utf8'));
const builders = { string, number, boolean, json };

const visits = table('visits')
  .columns(Object.fromEntries(columns.map(({ name, type }) => [name, name === 'id' ? string() : builders[type]().optional()])))
  .primaryKey('id');

export const schema = createSchema({ tables: [visits], enableLegacyQueries: true });

export const permissions = definePermissions(schema, () => ({
  visits: { row: { select: ANYONE_CAN } },
}));
