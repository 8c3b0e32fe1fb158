/**
 * Development aid: prints CREATE TABLE statements derived from the shared schema, to start a new
 * migration from. Migrations themselves are frozen files; test/schema-agreement.pg.test.ts checks
 * that the migrated tables still match the shared definitions column by column.
 *
 *   npm run schema:ddl -- Customer Service
 */
import { columnsOf, resources, type ResourceDef } from '../../shared/index.js';

function tableDDL(resource: ResourceDef): string {
  const columns = columnsOf(resource).map((c) => {
    const notNull = c.nullable ? '' : ' not null';
    return `  ${c.column} ${c.ddlType}${notNull}`;
  });
  const feed = resource.collection ? ['  _seq bigint not null', '  _deleted boolean not null default false'] : [];
  return [
    `create table ${resource.table} (`,
    ['  org_id text not null references organizations (id)', ...columns, ...feed, '  primary key (org_id, id)'].join(',\n'),
    ');',
  ].join('\n');
}

const wanted = process.argv.slice(2);
for (const resource of resources) {
  if (wanted.length === 0 || wanted.includes(resource.name)) console.log(`${tableDDL(resource)}\n`);
}
