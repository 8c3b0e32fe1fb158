import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withConfigTable } from './config-table.js';

/** `npm run docs:config`: writes the configuration table into server/README.md (config-table.ts). */
const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), 'README.md');
const before = fs.readFileSync(readme, 'utf8');
const after = withConfigTable(before);
if (after === before) console.log('server/README.md: the configuration table is current');
else {
  fs.writeFileSync(readme, after);
  console.log('server/README.md: configuration table written');
}
