import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { PROTOCOL_FLOOR_RANGE } from '../shared/sync/protocol-version.js';
import { issueLines } from '../shared/validation.js';
import type { EmbeddedStoreCapacity } from './operations/store-capacity.js';

/**
 * Environment -> typed configuration. The only reader of process.env; everything else receives a
 * Config. Invalid values stop the start with a message naming the variable.
 */
const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * Waits before each retry of a webhook delivery, after the first attempt (made at once): about
 * three days in all, Standard Webhooks' example schedule. Each wait is jittered by up to 20%.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';

const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

const EnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(32),
  UNSAFE_NO_FSYNC: boolean.default(false),
  EMBEDDED_STORE_MAX_TECHNICIANS: z.coerce.number().int().min(1).default(100),
  PLATFORM_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_000_000),
  SEED_DEMO_ORG: boolean.default(true),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
  S3_ENDPOINT: z.string().optional(),
  S3_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  S3_USE_SSL: boolean.default(true),
  S3_ACCESS_KEY: z.string().optional(),
  S3_SECRET_KEY: z.string().optional(),
  S3_BUCKET: z.string().default('pool-service'),
  S3_REGION: z.string().default('us-east-1'),
  MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  FILE_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(3600),
  FILE_URL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PUBLIC_URL: z.string().url().optional(),
  SYNC_SERVICE_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(60),
  SYNC_OFFICE_WINDOW_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
  SYNC_HEARTBEAT_MS: z.coerce.number().int().min(1000).max(300_000).default(4_000),
  SYNC_RECEIPT_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  SYNC_MIN_PROTOCOL_VERSION: z.coerce
    .number()
    .int()
    .min(PROTOCOL_FLOOR_RANGE.min)
    .max(PROTOCOL_FLOOR_RANGE.max, `must be at most ${PROTOCOL_FLOOR_RANGE.max}, the protocol version this server speaks`)
    .default(0),
  IDEMPOTENCY_KEY_HOURS: z.coerce.number().min(24, 'must be at least 24 (a retry within a day must find its key)').max(24 * 365).default(24),
  SYNC_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(16 * 1024 * 1024),
  SMTP_URL: z.string().url().optional(),
  EMAIL_FROM: z.string().default('Pool Service <no-reply@localhost>'),
  SMS_WEBHOOK_URL: z.string().url().optional(),
  BULK_WORKER: boolean.default(true),
  BULK_CHUNK_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  BULK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  BULK_STALE_MS: z.coerce.number().int().min(1000).default(30_000),
  VISIT_REPORT_DELAY_SECONDS: z.coerce.number().min(0).max(86_400).default(300),
  REPORT_LINK_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  INVOICE_LINK_DAYS: z.coerce.number().int().min(1).max(730).default(90),
  INVOICE_PDF_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
  WEBHOOK_ALLOW_HTTP: boolean.default(false),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: boolean.default(false),
  WEBHOOK_RETRY_SCHEDULE: z.string().default(DEFAULT_RETRY_SCHEDULE).transform((v, ctx) => scheduleOf(v, ctx)),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().min(0.001).max(24 * 60).default(120),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(128),
  CORS_ORIGINS: z.string().optional().transform((v, ctx) => originsOf(v, ctx)),
  COMPRESSION: boolean.default(true),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  SYNC_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
  SYNC_MAX_STREAMS_PER_TOKEN: z.coerce.number().int().min(1).max(1000).default(8),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(100).default(12),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(10_000),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  TOKEN_IDLE_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  PHONE_SIGN_IN_CODE_MINUTES: z.coerce.number().int().min(1).max(60).default(10),
  TRUST_PROXY: z.string().default('loopback').transform((v, ctx) => trustProxyOf(v, ctx)),
});

/** Names of settings whose values never appear in output (see config-report.ts). */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'PLATFORM_ADMIN_TOKEN',
  'S3_SECRET_KEY',
  'FILE_URL_SECRET',
  'METRICS_TOKEN',
]);

/** Settings that are URLs which may carry a password (shown with the password masked). */
export const URL_SETTINGS: ReadonlySet<string> = new Set(['DATABASE_URL', 'SMTP_URL', 'SMS_WEBHOOK_URL']);

/** Every setting, in the order server/README.md's configuration table lists them. */
export type SettingName = keyof typeof EnvSchema.shape;
export const SETTING_NAMES = Object.keys(EnvSchema.shape) as SettingName[];

/** The values each setting takes when the environment leaves it unset. */
export function settingDefaults(): Record<string, unknown> {
  return EnvSchema.parse({}) as Record<string, unknown>;
}


/** `5s,5m,2h` -> seconds [5, 300, 7200]; a bare number is seconds. */
function scheduleOf(value: string, ctx: z.RefinementCtx): number[] {
  const waits = value.split(',').map((w) => w.trim()).filter(Boolean);
  const seconds = waits.map((w) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(w);
    return match ? Number(match[1]) * UNIT_SECONDS[match[2] ?? 's']! : NaN;
  });
  if (!waits.length || seconds.some((s) => !Number.isFinite(s) || s > 7 * 86_400)) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a list of waits such as 5s,5m,30m,2h (each at most 7 days)` });
  }
  return seconds;
}

/** `https://app.example.com,https://admin.example.com` -> exact origins; `*` allows any origin. */
function originsOf(value: string | undefined, ctx: z.RefinementCtx): string[] {
  if (!value) return [];
  const origins = value.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    if (!parsed || parsed.origin !== origin) {
      ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin like https://app.example.com` });
    }
  }
  return origins;
}

/**
 * Which proxies' `X-Forwarded-For` (and `-Proto`, `-Host`) to believe, in Express's terms: `false`
 * (none: the client is the TCP peer), a number of proxy hops, or a list of proxy addresses and
 * subnets (`10.0.0.0/8`) or the names `loopback`, `linklocal`, `uniquelocal`. `true` believes
 * anyone, which lets any client choose its own address (and so escape per-address limits).
 */
export type TrustProxy = boolean | number | string[];

const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxyOf(value: string, ctx: z.RefinementCtx): TrustProxy {
  const text = value.trim();
  if (text === 'false' || text === 'true') return text === 'true';
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!TRUST_PROXY_NAMES.has(entry) && !isAddressOrSubnet(entry)) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an address, a subnet such as 10.0.0.0/8, or one of loopback, linklocal, uniquelocal` });
    }
  }
  return entries;
}

function isAddressOrSubnet(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

export interface S3Config {
  endPoint: string;
  port: number | undefined;
  useSSL: boolean;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

export interface FilesConfig {
  /** MinIO/S3 when S3_ENDPOINT is set; otherwise files live under DATA_DIR/blobs. */
  s3: S3Config | undefined;
  maxUploadBytes: number;
  /** How long a signed file link stays valid. */
  urlTtlSeconds: number;
  /** Key that signs file links; when unset one is generated once and kept in the database. */
  urlSecret: string | undefined;
  /** Base of file links (e.g. https://api.example.com); when unset, the request's own host. */
  publicUrl: string | undefined;
}

export interface Config {
  host: string;
  port: number;
  /** Folder for the embedded database (and, later, local files). */
  dataDir: string;
  /** Real PostgreSQL when set; otherwise embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Buffer cache of the embedded engine, in MB (PGLITE_SHARED_BUFFERS_MB, default 32). */
  pgliteSharedBuffersMb: number;
  /**
   * Acknowledge writes before they are on disk: the embedded store skips its syncs and local files
   * are not synced (UNSAFE_NO_FSYNC, default off). For throwaway development stores only: a power
   * cut or an OS crash loses acknowledged writes and can leave the store unreadable.
   */
  unsafeNoFsync: boolean;
  /**
   * The company size past which the embedded store no longer serves a morning's first syncs well
   * (EMBEDDED_STORE_MAX_TECHNICIANS): past it the server warns, in its log and on /readyz, that the
   * store should move to PostgreSQL. Unused on PostgreSQL.
   */
  embeddedStore: EmbeddedStoreCapacity;
  /** Guards POST /admin/organizations; the route is disabled when unset. */
  platformAdminToken: string | undefined;
  logLevel: string;
  bodyLimitBytes: number;
  /** Create a demo organization (and print its admin token) when the store is empty. */
  seedDemoOrg: boolean;
  shutdownGraceMs: number;
  /** Hours a request's Idempotency-Key and answer are kept (IDEMPOTENCY_KEY_HOURS, at least 24); pruned hourly. */
  idempotencyKeyHours: number;
  files: FilesConfig;
  sync: SyncConfig;
  bulk: BulkConfig;
  reports: ReportsConfig;
  invoices: InvoicesConfig;
  http: HttpConfig;
  auth: AuthConfig;
  webhooks: WebhooksConfig;
}

/** How long credentials last (see server/operations/README-auth.md). */
export interface AuthConfig {
  /**
   * Days a TECHNICIAN or OFFICE token may go unused (`last_used_at`, else its creation) before it
   * stops working, answered 401 with reason `expired` (TOKEN_IDLE_DAYS, default 30). ADMIN and API
   * tokens do not expire by disuse.
   */
  tokenIdleDays: number;
  /** Minutes a phone sign-in code works, once (PHONE_SIGN_IN_CODE_MINUTES, default 10, at most 60). */
  signInCodeMinutes: number;
}

/**
 * Webhook deliveries (the worker runs in every process that runs the bulk worker) and what an
 * endpoint URL may point at. See server/operations/events/README.md.
 */
export interface WebhooksConfig {
  /** Accept http:// endpoints (WEBHOOK_ALLOW_HTTP): for development only; production endpoints are https. */
  allowHttp: boolean;
  /**
   * Deliver to loopback, private, link-local, unique-local, CGNAT and other non-public addresses
   * (WEBHOOK_ALLOW_PRIVATE_ADDRESSES): for development and tests only. Off, such an address is
   * refused after the name is resolved, at every attempt, before any connection is made.
   */
  allowPrivateAddresses: boolean;
  /** Seconds to wait before each retry (WEBHOOK_RETRY_SCHEDULE); its length is the number of retries. */
  retrySchedule: number[];
  /** An attempt not answered with a 2xx within this fails (WEBHOOK_TIMEOUT_MS). */
  attemptTimeoutMs: number;
  /** A connection not made within this fails the attempt (WEBHOOK_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** An endpoint that has had no successful attempt for this long, while failing, is disabled (WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterHours: number;
  /** How often an idle worker looks for due retries and missed events (new events wake it at once). */
  pollMs: number;
  /** Attempts in flight at once per process (WEBHOOK_CONCURRENCY). */
  concurrency: number;
}

/** Visit reports (sent by the worker of every process that runs the bulk worker). */
export interface ReportsConfig {
  /** A completed visit is reported once it has gone this long without a change (edits right after completing are in it). */
  delaySeconds: number;
  /** How long the link in a report's email or text (its page and photos) works, unless revoked. */
  linkDays: number;
}

/** Invoice emails (sent by the worker of every process that runs the bulk worker). */
export interface InvoicesConfig {
  /** How long the link in an invoice's email (its page and PDF) works, unless revoked. */
  linkDays: number;
  /** Threads making the emails' PDFs (unset: one per core but one, at most 4). */
  pdfWorkers: number | undefined;
}

/** What protects the HTTP edge: browsers, compression, deadlines, metrics and per-token limits. */
export interface HttpConfig {
  /** Origins whose browser apps may call the API (CORS); empty: none; ['*']: any. */
  corsOrigins: string[];
  /** gzip/brotli by Accept-Encoding; off when a proxy in front compresses. */
  compression: boolean;
  /** A request (other than a sync stream) still unanswered after this is answered 503; also each SQL statement's limit. */
  requestTimeoutMs: number;
  /** Bearer token GET /metrics asks for; unset: /metrics is open. */
  metricsToken: string | undefined;
  /** Requests per token and minute (0: unlimited), and the separate budget of sync pulls and pushes. */
  rateLimitPerMinute: number;
  syncRateLimitPerMinute: number;
  /** Open sync streams one token may hold in one process. */
  maxStreamsPerToken: number;
  graphqlMaxDepth: number;
  graphqlMaxCost: number;
  /**
   * New failed authentications (a token, METRICS_TOKEN or platform token that does not check out)
   * one client address may make in a minute (0: unlimited). Past that, until the minute ends, that
   * address's credentials not known valid to the process are refused with 429 and Retry-After
   * before any lookup; a credential that has checked out before (from any address) is still
   * served, and a bad one sent again is answered 401 without spending anything. Counted in the
   * store, so by every process; see server/transports/http/README.md.
   */
  authFailuresPerMinute: number;
  /** The window of authFailuresPerMinute: 60 s unless given (tests shorten it); not a setting. */
  authFailureWindowSeconds?: number;
  /** Whose X-Forwarded-For to believe for the client's address (see TrustProxy). */
  trustProxy: TrustProxy;
}

export interface BulkConfig {
  /** Run the bulk-operation worker in this process. */
  worker: boolean;
  chunkSize: number;
  pollMs: number;
  /** A running job whose worker has been silent this long is taken over. */
  staleMs: number;
  /** nodemailer SMTP URL, e.g. smtp://user:pass@mail.example.com:587; unset: emails stay in the outbox. */
  smtpUrl: string | undefined;
  emailFrom: string;
  /** Texts are POSTed here as {to, body, messageId}; unset: texts stay in the outbox. */
  smsWebhookUrl: string | undefined;
}

export interface SyncConfig {
  /** Days of past visits and stock movements a technician's device holds (future visits always). */
  serviceWindowDays: number;
  /** Days of past visits, movements and changed customers and quotes the office's devices hold. */
  officeWindowDays: number;
  /** Interval of the comment line that keeps idle sync streams open through proxies. */
  heartbeatMs: number;
  /** Largest push body accepted. */
  bodyLimitBytes: number;
  /** Days a receipt of an applied change is kept (a repeat of it changes nothing that long). */
  receiptDays: number;
  /**
   * The oldest sync protocol version served (SYNC_MIN_PROTOCOL_VERSION, default 0: every client,
   * those that name no version included). A client below it is answered 426 VERSION_NOT_SUPPORTED
   * before anything is read or written, and keeps its changes until its app is updated; see
   * shared/sync/README.md, "Versions".
   */
  minProtocolVersion: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) {
    const problems = issueLines(parsed.error.issues, '');
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    unsafeNoFsync: e.UNSAFE_NO_FSYNC,
    embeddedStore: { maxTechnicians: e.EMBEDDED_STORE_MAX_TECHNICIANS },
    platformAdminToken: e.PLATFORM_ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    seedDemoOrg: e.SEED_DEMO_ORG,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    idempotencyKeyHours: e.IDEMPOTENCY_KEY_HOURS,
    bulk: {
      worker: e.BULK_WORKER,
      chunkSize: e.BULK_CHUNK_SIZE,
      pollMs: e.BULK_POLL_MS,
      staleMs: e.BULK_STALE_MS,
      smtpUrl: e.SMTP_URL,
      emailFrom: e.EMAIL_FROM,
      smsWebhookUrl: e.SMS_WEBHOOK_URL,
    },
    reports: {
      delaySeconds: e.VISIT_REPORT_DELAY_SECONDS,
      linkDays: e.REPORT_LINK_DAYS,
    },
    invoices: { linkDays: e.INVOICE_LINK_DAYS, pdfWorkers: e.INVOICE_PDF_WORKERS },
    webhooks: {
      allowHttp: e.WEBHOOK_ALLOW_HTTP,
      allowPrivateAddresses: e.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
      attemptTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
      connectTimeoutMs: e.WEBHOOK_CONNECT_TIMEOUT_MS,
      disableAfterHours: e.WEBHOOK_DISABLE_AFTER_HOURS,
      pollMs: e.WEBHOOK_POLL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
    sync: {
      serviceWindowDays: e.SYNC_SERVICE_WINDOW_DAYS,
      officeWindowDays: e.SYNC_OFFICE_WINDOW_DAYS,
      heartbeatMs: e.SYNC_HEARTBEAT_MS,
      bodyLimitBytes: e.SYNC_BODY_LIMIT_BYTES,
      receiptDays: e.SYNC_RECEIPT_DAYS,
      minProtocolVersion: e.SYNC_MIN_PROTOCOL_VERSION,
    },
    http: {
      corsOrigins: e.CORS_ORIGINS,
      compression: e.COMPRESSION,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      metricsToken: e.METRICS_TOKEN,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      syncRateLimitPerMinute: e.SYNC_RATE_LIMIT_PER_MINUTE,
      maxStreamsPerToken: e.SYNC_MAX_STREAMS_PER_TOKEN,
      graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
      graphqlMaxCost: e.GRAPHQL_MAX_COST,
      authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
      trustProxy: e.TRUST_PROXY,
    },
    auth: {
      tokenIdleDays: e.TOKEN_IDLE_DAYS,
      signInCodeMinutes: e.PHONE_SIGN_IN_CODE_MINUTES,
    },
    files: {
      s3: s3Config(e),
      maxUploadBytes: e.MAX_UPLOAD_BYTES,
      urlTtlSeconds: e.FILE_URL_TTL_SECONDS,
      urlSecret: e.FILE_URL_SECRET,
      publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    },
  };
}

function s3Config(e: z.output<typeof EnvSchema>): S3Config | undefined {
  if (!e.S3_ENDPOINT) return undefined;
  if (!e.S3_ACCESS_KEY || !e.S3_SECRET_KEY) {
    throw new Error('Invalid configuration:\n  S3_ACCESS_KEY and S3_SECRET_KEY are required when S3_ENDPOINT is set');
  }
  return {
    endPoint: e.S3_ENDPOINT,
    port: e.S3_PORT,
    useSSL: e.S3_USE_SSL,
    accessKey: e.S3_ACCESS_KEY,
    secretKey: e.S3_SECRET_KEY,
    bucket: e.S3_BUCKET,
    region: e.S3_REGION,
  };
}

/** `FOO=` in a shell or .env file means "not set", not "set to the empty string". */
function withoutEmptyValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<
    string,
    string
  >;
}
