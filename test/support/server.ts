import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino, type Logger } from 'pino';
import { createApp } from '../../server/app.js';
import { loadConfig, type AuthConfig, type HttpConfig } from '../../server/config.js';
import { provisionOrganization } from '../../server/operations/organization.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobStore } from '../../server/storage/blobs.js';
import type { Database } from '../../server/storage/db.js';
import { openLocalBlobStore } from '../../server/storage/local-blobs.js';
import { fileLinks, type FileLinks } from '../../server/transports/http/file-links.js';
import type { AppBundleDirs } from '../../server/transports/http/bundles.js';
import { LiveFanout } from '../../server/operations/sync/live-fanout.js';
import { createMessenger as createMessengerOf, type Messenger, type MessengerConfig } from '../../server/jobs/messenger.js';
import { BulkWorker, type WorkerOptions } from '../../server/jobs/worker.js';
import { VisitReportWorker } from '../../server/jobs/visit-reports.js';
import { InvoiceEmailWorker } from '../../server/jobs/invoice-emails.js';
import { WebhookWorker, type WebhookWorkerOptions } from '../../server/jobs/webhook-worker.js';
import type { WebhooksConfig } from '../../server/config.js';

/**
 * A real HTTP server on 127.0.0.1, port 0, over a test store, with helpers to call it.
 */
export interface TestServer {
  url: string;
  db: Database;
  blobs: BlobStore;
  links: FileLinks;
  worker: BulkWorker | null;
  webhooks: WebhookWorker | null;
  invoices: InvoiceEmailWorker | null;
  close(): Promise<void>;
}

export interface TestServerOptions {
  platformAdminToken: string | undefined;
  bodyLimitBytes: number;
  maxUploadBytes: number;
  /** Defaults to a local blob store in a new temporary folder, removed on close. */
  blobs: BlobStore;
  links: FileLinks;
  heartbeatMs: number;
  /** Largest sync push body (default 32 MB). */
  syncBodyLimitBytes: number;
  /** Run a bulk-operation worker with this server (off unless given). */
  worker: Partial<Omit<WorkerOptions, 'db' | 'blobs' | 'logger' | 'messenger'>> & { smtpUrl?: string; smsWebhookUrl?: string };
  /** The HTTP edge (CORS, compression, limits, metrics); the production defaults unless given. */
  http: Partial<HttpConfig>;
  /** Listen on this port (e.g. a server started again where a stopped one was); default any free port. */
  port: number;
  /** Run a visit-report worker with this server (off unless given), sending through these. */
  reports: { delaySeconds: number; linkDays?: number; pollMs?: number; retryBaseSeconds?: number; smtpUrl?: string; smsWebhookUrl?: string };
  /** Run an invoice-email worker with this server (off unless given), sending through this SMTP server. */
  invoices: { linkDays?: number; pollMs?: number; retryBaseSeconds?: number; smtpUrl?: string };
  /** Where the server logs (default: silent, or TEST_LOG_LEVEL's level on stdout). */
  logger: Logger;
  /** How long tokens and sign-in codes last; the production defaults unless given. */
  auth: Partial<AuthConfig>;
  /** The time tokens and sign-in codes are judged by (default the system clock). */
  clock: () => Date;
  /** The oldest sync protocol version served (SYNC_MIN_PROTOCOL_VERSION; default 0). */
  minProtocolVersion: number;
  /** Builds of the apps to serve instead of server/dist's (an upgraded server's new build). */
  bundles: AppBundleDirs;
  /**
   * Run a webhook worker with this server (off unless given), with these settings over the
   * production defaults; the endpoint URL policy follows them too.
   */
  webhooks: Partial<WebhooksConfig> & Pick<WebhookWorkerOptions, 'network' | 'afterAttempt' | 'random'> & { smtpUrl?: string };
}

/** The production webhook settings (what an unset environment gives). */
export const DEFAULT_WEBHOOK_SETTINGS: WebhooksConfig = loadConfig({}).webhooks;

export const TEST_FILE_SECRET = 'file-link-secret-for-tests-only-0123456789';

export const PLATFORM_ADMIN_TOKEN = 'platform-admin-token-for-tests-only';

export async function startTestServer(db: Database, options: Partial<TestServerOptions> = {}): Promise<TestServer> {
  const folder = options.blobs ? null : await mkdtemp(path.join(tmpdir(), 'pool-blobs-'));
  const blobs = options.blobs ?? (await openLocalBlobStore(folder!));
  const links = options.links ?? fileLinks(TEST_FILE_SECRET, 3600);
  const sync = { heartbeatMs: options.heartbeatMs ?? 4_000, bodyLimitBytes: options.syncBodyLimitBytes ?? 32 * 1024 * 1024, minProtocolVersion: options.minProtocolVersion ?? 0 };
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const feed = new LiveFanout(db, sync, (error) => logger.error({ err: error }, 'live fan-out read failed'));
  await feed.start();
  // Each worker's messenger, closed with the server: its pooled SMTP connections would otherwise
  // hold the test's mailbox open.
  const messengers: Messenger[] = [];
  const createMessenger = (config: MessengerConfig) => {
    const messenger = createMessengerOf(config);
    messengers.push(messenger);
    return messenger;
  };
  const worker = options.worker
    ? new BulkWorker({
        db,
        blobs,
        logger,
        messenger: createMessenger({ smtpUrl: options.worker.smtpUrl, smsWebhookUrl: options.worker.smsWebhookUrl, emailFrom: 'Test Pools <office@test.example>' }),
        pollMs: 50,
        ...options.worker,
      })
    : null;
  worker?.start();
  const webhookSettings = { ...DEFAULT_WEBHOOK_SETTINGS, ...options.webhooks };
  const webhooks = options.webhooks
    ? new WebhookWorker({
        db,
        logger,
        messenger: createMessenger({ smtpUrl: options.webhooks.smtpUrl, emailFrom: 'Test Pools <office@test.example>' }),
        settings: webhookSettings,
        network: options.webhooks.network,
        afterAttempt: options.webhooks.afterAttempt,
        random: options.webhooks.random,
      })
    : null;
  await webhooks?.start();
  let baseUrl = '';
  const reports = options.reports
    ? new VisitReportWorker({
        db,
        logger,
        messenger: createMessenger({ smtpUrl: options.reports.smtpUrl, smsWebhookUrl: options.reports.smsWebhookUrl, emailFrom: 'Test Pools <office@test.example>' }),
        delaySeconds: options.reports.delaySeconds,
        linkDays: options.reports.linkDays ?? 30,
        pollMs: options.reports.pollMs ?? 50,
        retryBaseSeconds: options.reports.retryBaseSeconds,
        baseUrl: () => baseUrl,
      })
    : null;
  const invoices = options.invoices
    ? new InvoiceEmailWorker({
        db,
        blobs,
        logger,
        messenger: createMessenger({ smtpUrl: options.invoices.smtpUrl, emailFrom: 'Test Pools <office@test.example>' }),
        linkDays: options.invoices.linkDays ?? 90,
        pollMs: options.invoices.pollMs ?? 50,
        retryBaseSeconds: options.invoices.retryBaseSeconds,
        baseUrl: () => baseUrl,
      })
    : null;
  const { app, lifecycle } = createApp({
    db,
    blobs,
    links,
    feed,
    bulkStarted: () => worker?.poke(),
    config: {
      platformAdminToken: 'platformAdminToken' in options ? options.platformAdminToken : PLATFORM_ADMIN_TOKEN,
      bodyLimitBytes: options.bodyLimitBytes ?? 100_000,
      files: { maxUploadBytes: options.maxUploadBytes ?? 5 * 1024 * 1024, publicUrl: undefined },
      sync,
      http: { ...loadConfig({}).http, ...options.http },
      auth: { ...loadConfig({}).auth, ...options.auth },
      webhooks: webhookSettings,
    },
    ...(options.clock ? { clock: options.clock } : {}),
    logger,
    ...(options.bundles ? { bundles: options.bundles } : {}),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port ?? 0, '127.0.0.1', () => resolve(s));
  });
  // Longer than any pause in a test or benchmark, so a pooled client connection is never closed by
  // the server just as the client reuses it (Node's 5 s default races with undici's keep-alive).
  server.keepAliveTimeout = 120_000;
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  reports?.start();
  invoices?.start();
  return {
    url: baseUrl,
    db,
    blobs,
    links,
    worker,
    webhooks,
    invoices,
    close: async () => {
      await worker?.stop();
      await webhooks?.stop();
      await reports?.stop();
      await invoices?.stop();
      for (const messenger of messengers) messenger.close();
      lifecycle.endStreams();
      await feed.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (folder) await rm(folder, { recursive: true, force: true });
    },
  };
}

export interface GraphQLResponse<T = Record<string, any>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: string[]; extensions?: { code?: string; [k: string]: unknown } }[];
}

/** POSTs a GraphQL document as JSON, the way a third party would. */
export async function gql<T = Record<string, any>>(
  server: { url: string },
  token: string | null,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GraphQLResponse<T>> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as Omit<GraphQLResponse<T>, 'status'>;
  return { status: res.status, ...body };
}

/** The codes of a response's errors, for compact assertions. */
export function errorCodes(response: GraphQLResponse): (string | undefined)[] {
  return (response.errors ?? []).map((e) => e.extensions?.code);
}

/** A new organization and its ADMIN token. */
export async function newOrganization(db: Database, name = 'Test Pools') {
  const { organization, token } = await provisionOrganization(db, { name });
  return { org: organization, token };
}
