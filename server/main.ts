import type { Server } from 'node:http';
import { createApp, type Lifecycle } from './app.js';
import { loadConfig, type Config } from './config.js';
import { formatSettings, reportSettings } from './config-report.js';
import { createLogger } from './logger.js';
import { LiveFanout } from './operations/sync/live-fanout.js';
import { createMessenger } from './jobs/messenger.js';
import { processLife } from './jobs/process-life.js';
import { BulkWorker } from './jobs/worker.js';
import { VisitReportWorker } from './jobs/visit-reports.js';
import { InvoiceEmailWorker } from './jobs/invoice-emails.js';
import { startReceiptPruning } from './jobs/receipt-pruner.js';
import { startScopeAgeing } from './jobs/scope-ageing.js';
import { startStatisticsKeeper } from './jobs/statistics-keeper.js';
import { startEventPruning } from './jobs/event-pruner.js';
import { startCapacityCheck } from './jobs/capacity-check.js';
import { WebhookWorker } from './jobs/webhook-worker.js';
import { seedDemoOrganization } from './seed.js';
import type { BlobStore } from './storage/blobs.js';
import type { Database } from './storage/db.js';
import { localBlobFolder, openBlobStore } from './storage/open-blobs.js';
import { openStore } from './storage/open.js';
import { sharedSecret } from './storage/secrets.js';
import { fileLinks } from './transports/http/file-links.js';

/**
 * Starts the server: configuration, storage and migrations, the demo seed, the listener, and a
 * graceful shutdown on SIGTERM / SIGINT (stop accepting, finish in-flight requests, close the store).
 */
async function main(): Promise<void> {
  if (process.argv.includes('--help')) return void console.log(formatSettings(reportSettings()));
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb, unsafeNoFsync: config.unsafeNoFsync, statementTimeoutMs: config.http.requestTimeoutMs, syncWindowDays: config.sync.serviceWindowDays, officeWindowDays: config.sync.officeWindowDays });
  const engine = config.databaseUrl ? 'postgres' : `pglite (${config.dataDir})`;
  for (const warning of db.durability.warnings) logger.warn({ durability: false }, warning);
  const capacity = await startCapacityCheck(db, { capacity: config.embeddedStore, tokenIdleDays: config.auth.tokenIdleDays }, logger);
  const blobs = await openBlobStore(config.files, config.dataDir, db, { syncToDisk: !config.unsafeNoFsync }).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  const secret = config.files.urlSecret ?? (await sharedSecret(db, 'file-links'));
  const links = fileLinks(secret, config.files.urlTtlSeconds);
  if (config.seedDemoOrg) await printDemoToken(db, blobs);
  const feed = new LiveFanout(db, config.sync, (error) => logger.error({ err: error }, 'live fan-out read failed'));
  await feed.start();
  const messenger = createMessenger(config.bulk);
  const worker = new BulkWorker({ db, blobs, messenger, logger, ...config.bulk, life: processLife(db.engine, config) });
  if (config.bulk.worker) worker.start();
  // Links in reports point at PUBLIC_URL, or at the address this process ends up listening on.
  let listeningUrl = `http://${config.host}:${config.port}`;
  const reports = new VisitReportWorker({ db, messenger, logger, ...config.reports, pollMs: config.bulk.pollMs, baseUrl: () => config.files.publicUrl ?? listeningUrl });
  if (config.bulk.worker) reports.start();
  const invoiceEmails = new InvoiceEmailWorker({ db, blobs, messenger, logger, ...config.invoices, pollMs: config.bulk.pollMs, baseUrl: () => config.files.publicUrl ?? listeningUrl });
  if (config.bulk.worker) invoiceEmails.start();
  // Beside the bulk worker: every process that works jobs delivers webhooks too.
  const webhooks = new WebhookWorker({ db, messenger, logger, settings: config.webhooks });
  if (config.bulk.worker) await webhooks.start();
  const stopPruning = startReceiptPruning(db, { receiptDays: config.sync.receiptDays, idempotencyKeyHours: config.idempotencyKeyHours }, logger);
  const stopAgeing = startScopeAgeing(db, logger);
  const stopStatistics = startStatisticsKeeper(db, logger);
  const stopEventPruning = startEventPruning(db, logger);
  const { app, lifecycle } = createApp({ db, blobs, links, config, feed, logger, bulkStarted: () => worker.poke(), warnings: capacity.warnings });
  const server = app.listen(config.port, config.host);
  // Before announcing the address: a signal right after it must already shut down gracefully.
  onShutdownSignal(() => {
    stopPruning();
    stopAgeing();
    stopStatistics();
    stopEventPruning();
    capacity.stop();
    return shutdown({ server, db, feed, workers: [worker, reports, invoiceEmails, webhooks], messenger, lifecycle, config, logger });
  });
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  listeningUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  if (!config.files.publicUrl && config.bulk.smtpUrl) logger.warn('PUBLIC_URL is not set: links in visit reports and invoice emails point at this process\'s own address');
  const files = config.files.s3 ? `s3 (${config.files.s3.endPoint}/${config.files.s3.bucket})` : `local (${localBlobFolder(config.dataDir)})`;
  logger.info({ engine, files, url: `http://${config.host}:${port}` }, 'server listening');
  console.log(`Pool service listening on http://${config.host}:${port} (store: ${engine}; files: ${files})`);
  console.log(`Office app: http://${config.host}:${port}/app`);
  console.log(`Technician app: http://${config.host}:${port}/tech/ (a phone signs in by the QR code under the office app's Settings, Phones)`);
}

async function printDemoToken(db: Database, blobs: BlobStore): Promise<void> {
  const demo = await seedDemoOrganization(db, blobs);
  if (!demo) return;
  console.log(
    [
      '',
      `Created the demo organization "${demo.organization.name}" (id ${demo.organization.id}),`,
      `with ${demo.data.customers} customers, ${demo.data.visits} visits and ${demo.data.technicians} technicians of sample data.`,
      'Its ADMIN token is shown this once; keep it:',
      '',
      `  ${demo.token}`,
      '',
    ].join('\n'),
  );
}

function onShutdownSignal(handler: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void handler();
    });
  }
}

async function shutdown(deps: {
  server: Server;
  db: Database;
  feed: LiveFanout;
  workers: { stop(): Promise<void> }[];
  messenger: { close(): void };
  lifecycle: Lifecycle;
  config: Config;
  logger: import('pino').Logger;
}): Promise<void> {
  const { server, db, feed, workers, messenger, lifecycle, config, logger } = deps;
  logger.info('shutting down: finishing in-flight requests');
  lifecycle.ready = false;
  lifecycle.endStreams();
  await feed.stop();
  const forceClose = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
  forceClose.unref();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await Promise.all(workers.map((w) => w.stop()));
  // The pooled SMTP connections end with a QUIT once the workers are done with them.
  messenger.close();
  await db.close();
  logger.info('stopped');
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
