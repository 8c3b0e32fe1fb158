import { writeFile } from 'node:fs/promises';
import { generateSchemaTypes, SCHEMA_TYPES_FILE } from './schema-types.js';

/** `npm run graphql:types`: writes the schema's TypeScript types (see schema-types.ts). */
await writeFile(SCHEMA_TYPES_FILE, await generateSchemaTypes());
console.log(`wrote ${SCHEMA_TYPES_FILE}`);
