import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSchemaTypes, SCHEMA_TYPES_FILE } from '../server/transports/graphql/schema-types.js';

/** The resolvers' argument types are generated from the schema; the checked-in file must be what the schema gives now. */
describe('GraphQL schema types', () => {
  it('are up to date with the schema (run `npm run graphql:types` after changing it)', async () => {
    expect(fs.readFileSync(SCHEMA_TYPES_FILE, 'utf8')).toBe(await generateSchemaTypes());
  });
});
