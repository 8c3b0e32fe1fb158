import { writeFile } from 'node:fs/promises';
import { APP_OPERATIONS, generateOperationTypes, generateSchemaTypes, SCHEMA_TYPES_FILE } from './schema-types.js';

/** `npm run graphql:types`: writes the schema's TypeScript types and each app's operation types (see schema-types.ts). */
await writeFile(SCHEMA_TYPES_FILE, await generateSchemaTypes());
console.log(`wrote ${SCHEMA_TYPES_FILE}`);
for (const { source, output } of APP_OPERATIONS) {
  await writeFile(output, await generateOperationTypes(source, output));
  console.log(`wrote ${output}`);
}
