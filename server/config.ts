import path from 'node:path';
import { z } from 'zod';

/**
 * Environment -> typed configuration. The only reader of process.env; everything else receives a
 * Config. Invalid values stop the start with a message naming the variable.
 */
const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const EnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  PLATFORM_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_000_000),
  SEED_DEMO_ORG: boolean.default(true),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
});

export interface Config {
  host: string;
  port: number;
  /** Folder for the embedded database (and, later, local files). */
  dataDir: string;
  /** Real PostgreSQL when set; otherwise embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Guards POST /admin/organizations; the route is disabled when unset. */
  platformAdminToken: string | undefined;
  logLevel: string;
  bodyLimitBytes: number;
  /** Create a demo organization (and print its admin token) when the store is empty. */
  seedDemoOrg: boolean;
  shutdownGraceMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    platformAdminToken: e.PLATFORM_ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    seedDemoOrg: e.SEED_DEMO_ORG,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
  };
}

/** `FOO=` in a shell or .env file means "not set", not "set to the empty string". */
function withoutEmptyValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >;
}
