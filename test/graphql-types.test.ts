import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APP_OPERATIONS, generateOperationTypes, generateSchemaTypes, SCHEMA_TYPES_FILE } from '../server/transports/graphql/schema-types.js';

/**
 * Types generated from the GraphQL schema: the resolvers' argument types, and each app's answers
 * and variables as its operations select them. The checked-in files must be what the schema and
 * the operations give now, and an operation the schema does not have cannot be generated at all.
 */
describe('GraphQL types', () => {
  it('of the schema are up to date (run `npm run graphql:types` after changing it)', async () => {
    expect(fs.readFileSync(SCHEMA_TYPES_FILE, 'utf8')).toBe(await generateSchemaTypes());
  });

  it.each(APP_OPERATIONS)("of the app operations in $source are up to date", async ({ source, output }) => {
    expect(fs.readFileSync(output, 'utf8')).toBe(await generateOperationTypes(source, output));
  });

  it('refuse an operation that selects a field the schema does not have', async () => {
    const wrong = 'query Wrong { organization { name favouriteColour } }';
    await expect(generateOperationTypes('wrong.graphql', 'wrong.ts', () => wrong)).rejects.toThrow(/favouriteColour/);
  });
});
