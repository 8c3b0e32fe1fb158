import type { GraphQLObjectType } from 'graphql';
import { addRxPlugin, createRxDatabase, type RxJsonSchema } from 'rxdb';
import { disableWarnings, RxDBDevModePlugin } from 'rxdb/plugins/dev-mode';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  columnsOf,
  graphqlTypeOf,
  recordValidator,
  replicatedResources,
  resources,
  replicaSchemaOf,
  rxSchemaOf,
  type Customer,
  type Service,
} from '../shared/index.js';
import { buildGraphQLSchema } from '../server/transports/graphql/schema.js';
import { engines, openTestStore, type TestStore } from './support/engines.js';

/**
 * One definition per resource in shared/; every derived form must carry every field, with the
 * matching type, so a field added once appears everywhere.
 */

// Compile-time agreement (checked by `npm run typecheck`): the inferred TS types carry the fields.
const _typesCarryFields: [Customer['lastName'], Customer['tags'], Service['chemicalReadings']] = [
  'Smith',
  ['weekly'],
  { freeChlorine: 3, totalChlorine: null, ph: 7.4, totalAlkalinity: null, calciumHardness: null,
    cyanuricAcid: null, salt: null, phosphates: null, tds: null, temperature: 78, takenAt: null },
];
void _typesCarryFields;

const CHANGE_FEED_COLUMNS = ['_seq', '_deleted'];
/** Columns the database derives from declared fields (none at present). */
const DERIVED_COLUMNS: Record<string, string[]> = {};

describe.each(engines)('SQL tables on %s match the shared definitions', (engine) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(engine);
  });
  afterAll(() => store?.drop());

  it.each(resources.map((r) => [r.name, r] as const))('%s', async (_name, resource) => {
    const { rows } = await store.db.query<{ column_name: string; data_type: string; is_nullable: string }>(
      `select column_name, data_type, is_nullable from information_schema.columns
        where table_schema = current_schema() and table_name = $1`,
      [resource.table],
    );
    const actual = new Map(rows.map((r) => [r.column_name, r]));
    for (const column of columnsOf(resource)) {
      const found = actual.get(column.column);
      expect(found, `${resource.table}.${column.column} (field ${column.field})`).toBeDefined();
      expect(found!.data_type, `${resource.table}.${column.column} type`).toBe(column.sqlType);
      expect(found!.is_nullable === 'YES', `${resource.table}.${column.column} nullability`).toBe(column.nullable);
    }
    const expected = new Set([
      'org_id',
      ...columnsOf(resource).map((c) => c.column),
      ...(resource.collection ? CHANGE_FEED_COLUMNS : []),
      ...(DERIVED_COLUMNS[resource.table] ?? []),
    ]);
    const extra = [...actual.keys()].filter((c) => !expected.has(c) && c !== 'token_hash');
    expect(extra, `${resource.table} has columns no field declares`).toEqual([]);
  });
});

describe('GraphQL, RxDB and validators match the shared definitions', () => {
  const schema = buildGraphQLSchema();

  it.each(resources.map((r) => [r.name, r] as const))('GraphQL type %s has every public field', (_n, resource) => {
    const type = schema.getType(resource.name) as GraphQLObjectType;
    const fields = type.getFields();
    for (const [name, { meta }] of Object.entries(resource.fields)) {
      if (meta.internal) {
        expect(fields[name], `${resource.name}.${name} is internal`).toBeUndefined();
        continue;
      }
      expect(fields[name]?.type.toString(), `${resource.name}.${name}`).toBe(graphqlTypeOf(meta));
    }
  });

  it.each(resources.map((r) => [r.name, r] as const))('RxDB schema and validator of %s list every field', (_n, resource) => {
    const names = Object.keys(resource.fields).sort();
    expect(Object.keys(rxSchemaOf(resource).properties).sort()).toEqual(names);
    expect(Object.keys(recordValidator(resource).shape).sort()).toEqual(names);
  });

  it('RxDB accepts every replicated collection schema (dev-mode checks) within its 13-collection limit', async () => {
    expect(replicatedResources.length).toBeLessThan(13);
    disableWarnings();
    addRxPlugin(RxDBDevModePlugin);
    const db = await createRxDatabase({
      name: 'schemacheck',
      storage: wrappedValidateAjvStorage({ storage: getRxStorageMemory() }),
      ignoreDuplicate: true,
    });
    try {
      const collections = Object.fromEntries(
        // Each at version 0: what is checked is the schema (with the replica's keys and indexes), not its history.
        replicatedResources.map((r) => [r.collection!, { schema: { ...replicaSchemaOf(r), version: 0 } as RxJsonSchema<any> }]),
      );
      await db.addCollections(collections);
      const doc = await db.collections.customers!.insert({
        id: 'c1',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        lastName: 'Smith',
        tags: ['weekly'],
      });
      expect(doc.get('lastName')).toBe('Smith');
      await expect(
        db.collections.customers!.insert({ id: 'c2', createdAt: 'x', updatedAt: 'y', lastName: 42 }),
      ).rejects.toThrow();
    } finally {
      await db.remove();
    }
  });

  it('the validator rejects a wrong type and an unknown field with their paths', () => {
    const validator = recordValidator(replicatedResources.find((r) => r.name === 'Service')!);
    const result = validator.safeParse({
      id: 's1',
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      photos: [],
      chemicalReadings: { ph: 'seven' },
      surprise: true,
    });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['chemicalReadings.ph', '']));
  });
});
