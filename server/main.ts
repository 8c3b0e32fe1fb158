import type { Server } from 'node:http';
import { createApp, type Lifecycle } from './app.js';
import { loadConfig, type Config } from './config.js';
import { formatSettings, reportSettings } from './config-report.js';
import { createLogger } from './logger.js';
import { LiveFeed } from './operations/sync/live-feed.js';
import { createMessenger } from './jobs/messenger.js';
import { BulkWorker } from './jobs/worker.js';
import { startReceiptPruning } from './jobs/receipt-pruner.js';
import { seedDemoOrganization } from './seed.js';
import type { BlobStore } from './storage/blobs.js';
import type { Database } from './storage/db.js';
import { openBlobStore } from './storage/open-blobs.js';
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
  const db = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgliteSharedBuffersMb: config.pgliteSharedBuffersMb, statementTimeoutMs: config.http.requestTimeoutMs, syncWindowDays: config.sync.serviceWindowDays });
  const engine = config.databaseUrl ? 'postgres' : `pglite (${config.dataDir})`;
  const blobs = await openBlobStore(config.files, config.dataDir);
  const secret = config.files.urlSecret ?? (await sharedSecret(db, 'file-links'));
  const links = fileLinks(secret, config.files.urlTtlSeconds);
  if (config.seedDemoOrg) await printDemoToken(db, blobs);
  const feed = new LiveFeed(db, config.sync, (error) => logger.error({ err: error }, 'live feed read failed'));
  await feed.start();
  const messenger = createMessenger(config.bulk);
  const worker = new BulkWorker({ db, blobs, messenger, logger, ...config.bulk });
  if (config.bulk.worker) worker.start();
  const stopPruning = startReceiptPruning(db, config.sync.receiptDays, logger);
  const { app, lifecycle } = createApp({ db, blobs, links, config, feed, logger, bulkStarted: () => worker.poke() });
  const server = app.listen(config.port, config.host);
  // Before announcing the address: a signal right after it must already shut down gracefully.
  onShutdownSignal(() => {
    stopPruning();
    return shutdown({ server, db, feed, worker, lifecycle, config, logger });
  });
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const files = config.files.s3 ? `s3 (${config.files.s3.endPoint}/${config.files.s3.bucket})` : 'local';
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
  feed: LiveFeed;
  worker: BulkWorker;
  lifecycle: Lifecycle;
  config: Config;
  logger: import('pino').Logger;
}): Promise<void> {
  const { server, db, feed, worker, lifecycle, config, logger } = deps;
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
  await worker.stop();
  await db.close();
  logger.info('stopped');
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
