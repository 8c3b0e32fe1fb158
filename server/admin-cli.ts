import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROLES, type Role } from '../shared/index.js';
import { loadConfig } from './config.js';
import { issueToken } from './operations/auth.js';
import { provisionOrganization } from './operations/organization.js';
import type { Database } from './storage/db.js';
import { openStore } from './storage/open.js';
import { organizations } from './storage/organizations.js';
import { backupEmbeddedStore, restoreEmbeddedStore } from './storage/backup.js';
import { FolderInUseError } from './storage/folder-lock.js';

/**
 * Offline administration on the configured store (DATABASE_URL or DATA_DIR):
 *
 *   npm run admin -- create-org --name "Blue Lagoon Pools" [--json]
 *   npm run admin -- create-token --org <orgId> --name "Route 7 tablet" --role TECHNICIAN [--json]
 *   npm run admin -- backup --out pool-backup.tar.gz      (embedded store)
 *   npm run admin -- restore --from pool-backup.tar.gz    (embedded store)
 *
 * With the embedded store, stop the server first: the data folder has one owner at a time.
 */
const USAGE = `usage:
  npm run admin -- create-org --name NAME [--json]
  npm run admin -- create-token --org ORG_ID --name NAME --role ${ROLES.join('|')} [--json]
  npm run admin -- backup --out FILE
  npm run admin -- restore --from FILE`;

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

/** Commands on the embedded store's folder itself (they must not open it as a server would). */
const folderCommands: Record<string, (dataDir: string, opts: Record<string, string | boolean | undefined>) => Promise<string>> = {
  backup: async (dataDir, opts) => {
    const out = path.resolve(requiredOption(opts, 'out'));
    const manifest = await backupEmbeddedStore(dataDir, out);
    return `Backed up ${dataDir} (schema version ${manifest.schemaVersion}) to ${out}`;
  },
  restore: async (dataDir, opts) => {
    const from = path.resolve(requiredOption(opts, 'from'));
    const { manifest, replaced } = await restoreEmbeddedStore(dataDir, from);
    return `Restored the backup of ${manifest.createdAt} into ${dataDir}.\nThe store it replaced is kept in ${replaced}; remove it once you are sure.`;
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
      out: { type: 'string' },
      from: { type: 'string' },
    },
  });
  const name = positionals[0] ?? '';
  const config = loadConfig();
  if (folderCommands[name]) return void console.log(await runOnFolder(name, config, values));
  const command = commands[name];
  if (!command) throw new Error(USAGE);
  const db = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb, unsafeNoFsync: config.unsafeNoFsync, syncWindowDays: config.sync.serviceWindowDays, officeWindowDays: config.sync.officeWindowDays });
  try {
    const result = (await command(db, values)) as { token: string };
    console.log(values.json ? JSON.stringify(result, null, 2) : describe(result));
  } finally {
    await db.close();
  }
}

async function runOnFolder(name: string, config: ReturnType<typeof loadConfig>, opts: Record<string, string | boolean | undefined>): Promise<string> {
  if (config.databaseUrl) {
    throw new Error(`${name} is for the embedded store. With PostgreSQL (DATABASE_URL) use pg_dump / pg_restore; see server/README.md, Backups.`);
  }
  try {
    return await folderCommands[name]!(config.dataDir, opts);
  } catch (error) {
    if (error instanceof FolderInUseError) {
      throw new Error(`${error.message}\nThe embedded store is copied only while no server has it open: stop the server, run ${name}, start it again.`);
    }
    throw error;
  }
}

function requiredOption(opts: Record<string, string | boolean | undefined>, name: string): string {
  const value = opts[name];
  if (typeof value !== 'string' || !value) throw new Error(`--${name} FILE is required\n${USAGE}`);
  return value;
}

function describe(result: { token: string; organization?: { id: string; name: string } }): string {
  const org = result.organization ? `Organization "${result.organization.name}" (id ${result.organization.id})\n` : '';
  return `${org}Token (shown once): ${result.token}`;
}

run().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
