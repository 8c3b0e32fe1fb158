import { parseArgs } from 'node:util';
import { ROLES, type Role } from '../shared/index.js';
import { loadConfig } from './config.js';
import { issueToken } from './operations/auth.js';
import { provisionOrganization } from './operations/organization.js';
import type { Database } from './storage/db.js';
import { openStore } from './storage/open.js';
import { organizations } from './storage/organizations.js';

/**
 * Offline administration on the configured store (DATABASE_URL or DATA_DIR):
 *
 *   npm run admin -- create-org --name "Blue Lagoon Pools" [--json]
 *   npm run admin -- create-token --org <orgId> --name "Route 7 tablet" --role TECHNICIAN [--json]
 *
 * With the embedded store, stop the server first: the data folder has one owner at a time.
 */
const USAGE = `usage:
  npm run admin -- create-org --name NAME [--json]
  npm run admin -- create-token --org ORG_ID --name NAME --role ${ROLES.join('|')} [--json]`;

type Command = (db: Database, opts: Record<string, string | boolean | undefined>) => Promise<unknown>;

const commands: Record<string, Command> = {
  'create-org': async (db, opts) => {
    const created = await provisionOrganization(db, { name: opts.name });
    return { organization: created.organization, token: created.token };
  },
  'create-token': async (db, opts) => {
    const orgId = String(opts.org ?? '');
    if (!(await organizations.findById(db, orgId, orgId))) throw new Error(`No organization ${orgId}`);
    const role = String(opts.role ?? '') as Role;
    if (!ROLES.includes(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
    return db.transaction((tx) => issueToken(tx, orgId, { name: String(opts.name ?? ''), role }));
  },
};

async function run(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      org: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const command = commands[positionals[0] ?? ''];
  if (!command) throw new Error(USAGE);
  const config = loadConfig();
  const db = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb });
  try {
    const result = (await command(db, values)) as { token: string };
    console.log(values.json ? JSON.stringify(result, null, 2) : describe(result));
  } finally {
    await db.close();
  }
}

function describe(result: { token: string; organization?: { id: string; name: string } }): string {
  const org = result.organization ? `Organization "${result.organization.name}" (id ${result.organization.id})\n` : '';
  return `${org}Token (shown once): ${result.token}`;
}

run().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
