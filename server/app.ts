import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { AuthConfig, Config, FilesConfig, HttpConfig } from './config.js';
import type { AuthPolicy } from './operations/auth-policy.js';
import type { BlobStore } from './storage/blobs.js';
import { storeAnswers, type Database } from './storage/db.js';
import { graphqlHandler } from './transports/graphql/handler.js';
import { buildGraphQLSchema } from './transports/graphql/schema.js';
import { declaredBodyWithin } from './transports/http/bodies.js';
import { compressResponses } from './transports/http/compression.js';
import { allowOrigins } from './transports/http/cors.js';
import { answerWithin } from './transports/http/deadline.js';
import { graphqlErrors, notFoundRoute, restErrors, sendGraphQLError } from './transports/http/errors.js';
import { frontPageRoutes } from './transports/http/front-page.js';
import { officeAppRoutes } from './transports/http/office-app.js';
import { protocolVersionGate } from './transports/http/protocol-version.js';
import { technicianAppRoutes, technicianAppSignInLink } from './transports/http/technician-app.js';
import type { AppBundleDirs } from './transports/http/bundles.js';
import { securityHeaders } from './transports/http/security-headers.js';
import { createMetrics, metricsRoute, type Metrics } from './transports/http/metrics.js';
import { authThrottle } from './transports/http/auth-throttle.js';
import { liveTokens } from './operations/live-tokens.js';
import { requestBudgets } from './transports/http/rate-limits.js';
import { baseUrlOf, type FileLinks, type GeneratedPdfRef, type InvoicePdfRef } from './transports/http/file-links.js';
import { authenticateRequests } from './transports/http/request-context.js';
import { requestLogger } from './transports/http/request-log.js';
import { adminRouter } from './transports/rest/admin.js';
import { downloadRoute, uploadRoutes } from './transports/rest/files.js';
import { inventoryRoutes } from './transports/rest/inventory.js';
import { chemicalCostExportRoute } from './transports/rest/chemical-cost.js';
import { quoteExportRoute } from './transports/rest/quotes.js';
import { billingExportRoutes } from './transports/rest/billing-exports.js';
import { quotePdfRoute } from './transports/rest/quote-pdfs.js';
import { reportRoutes } from './transports/rest/reports.js';
import { invoicePdfRoutes, invoicePageRoutes } from './transports/rest/invoice-delivery.js';
import { syncRoutes } from './transports/sync/routes.js';
import { bulkRoutes } from './transports/rest/bulk.js';
import { phoneSignInRoute } from './transports/rest/phone-sign-in.js';
import type { LiveFanout } from './operations/sync/live-fanout.js';
import { STRICT_POLICY, type WebhookPolicy } from './operations/events/endpoints.js';
import type { ServerWarning } from './operations/store-capacity.js';

export interface AppDeps {
  db: Database;
  blobs: BlobStore;
  /** Signs and checks file links (see transports/http/file-links.ts). */
  links: FileLinks;
  config: Pick<Config, 'platformAdminToken' | 'bodyLimitBytes'> & {
    http: HttpConfig;
    files: Pick<FilesConfig, 'maxUploadBytes' | 'publicUrl'>;
    sync: { heartbeatMs: number; bodyLimitBytes: number; minProtocolVersion: number };
    auth: AuthConfig;
    /** What webhook endpoint URLs may be (http, private addresses); https and public addresses only unless given. */
    webhooks?: WebhookPolicy;
  };
  /** Where the apps' built bundles are (default server/dist/...); tests serve other builds. */
  bundles?: AppBundleDirs;
  /** The time tokens and sign-in codes are judged by (default the system clock; tests move it). */
  clock?: () => Date;
  /** Live fan-out of changes to sync streams (started by the caller). */
  feed: LiveFanout;
  /** Called when a bulk operation was queued (the worker looks for work at once). */
  bulkStarted?: () => void;
  logger: Logger;
  /** What /readyz lists under `warnings` (things to act on that leave the server ready); none unless given. */
  warnings?: () => ServerWarning[];
}

/** Readiness is flipped off at shutdown so a load balancer stops sending new requests. */
export interface Lifecycle {
  ready: boolean;
  /** Ends long-lived responses (sync streams) so a graceful shutdown can complete. */
  endStreams(): void;
}

/**
 * Builds the Express app without listening (tests call it in-process; main.ts listens).
 *
 * @example
 *   const { app } = createApp({ db, config, logger })
 *   app.listen(0, '127.0.0.1')
 */
export function createApp({ db, blobs, links, config, feed, bulkStarted, logger, bundles = {}, clock, warnings = () => [] }: AppDeps): { app: Express; lifecycle: Lifecycle } {
  const app = express();
  const metrics = createMetrics({ db, feed });
  const budgets = requestBudgets(db, { api: config.http.rateLimitPerMinute, sync: config.http.syncRateLimitPerMinute });
  const throttle = authThrottle(db, { failuresPerWindow: config.http.authFailuresPerMinute, windowSeconds: config.http.authFailureWindowSeconds });
  const tokens = liveTokens(db);
  const policy: AuthPolicy = { ...config.auth, now: clock ?? (() => new Date()) };
  const authenticate = authenticateRequests({ db, blobs, policy, gate: throttle.gate('api token', { mayBeValid: (req) => tokens.mayBeLive(req.get('authorization')) }) });
  const auth = inSequence(authenticate, budgets.api);
  const sync = syncRoutes(inSequence(authenticate, budgets.sync), {
    feed,
    settings: { ...config.sync, maxStreamsPerToken: config.http.maxStreamsPerToken },
    logger,
    metrics,
  });
  const lifecycle: Lifecycle = { ready: true, endStreams: sync.endStreams };
  app.disable('x-powered-by');
  // The client's address (req.ip: logs, per-address limits) as the trusted proxies pass it on.
  app.set('trust proxy', config.http.trustProxy);
  app.use(requestLogger(logger));
  app.use(securityHeaders({ publicUrl: config.files.publicUrl }));
  useHttpEdge(app, config.http, metrics);
  app.use(healthRoutes(db, lifecycle, warnings));
  app.use(metricsRoute(metrics, config.http.metricsToken, throttle.gate('metrics token')));
  app.use(frontPageRoutes());
  app.use(officeAppRoutes(bundles.office));
  app.use(technicianAppRoutes(bundles.technician));
  // After the apps' own files (an app too old to sync must still load its update), before the API.
  app.use(protocolVersionGate(config.sync.minProtocolVersion));
  app.use(graphqlRouter({ auth, policy, links, config, metrics, bulkStarted, logger }));
  app.use(adminRouter(db, config.platformAdminToken, config.bodyLimitBytes, throttle.gate('platform admin token')));
  app.use(phoneSignInRoute(db, policy, throttle.gate('phone sign-in code')));
  app.use(downloadRoute(blobs, links));
  app.use(quotePdfRoute(db, blobs, links));
  app.use(reportRoutes(db, blobs));
  app.use(invoicePageRoutes(db, blobs));
  app.use(invoicePdfRoutes(auth, db, blobs, links));
  app.use(uploadRoutes(auth, { links, maxUploadBytes: config.files.maxUploadBytes, publicUrl: config.files.publicUrl }));
  app.use(quoteExportRoute(auth));
  app.use(chemicalCostExportRoute(auth));
  app.use(billingExportRoutes(auth));
  app.use(inventoryRoutes(auth, config.bodyLimitBytes));
  app.use(sync.router);
  app.use(bulkRoutes(auth, { links, publicUrl: config.files.publicUrl, bodyLimitBytes: config.sync.bodyLimitBytes, onStarted: () => bulkStarted?.() }));
  app.use(notFoundRoute);
  app.use(restErrors(logger));
  return { app, lifecycle };
}

/** What every request passes first: metrics, CORS, compression, the deadline. */
function useHttpEdge(app: Express, http: HttpConfig, metrics: Metrics): void {
  app.use(metrics.http);
  const cors = allowOrigins(http.corsOrigins);
  if (cors) app.use(cors);
  if (http.compression) app.use(compressResponses());
  app.use(exceptLongLived(answerWithin(http.requestTimeoutMs)));
}

/** Liveness, and readiness (false while shutting down or without a database), with whether writes are synced to disk and the operator's warnings. */
function healthRoutes(db: Database, lifecycle: Lifecycle, warnings: () => ServerWarning[]): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const dbOk = await storeAnswers(db);
    const ready = lifecycle.ready && dbOk;
    // Durability and capacity warnings are details, not unreadiness: the store works (an OS crash
    // could lose writes; a morning's syncs are slow), and a balancer must not stop sending requests.
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', database: dbOk, durability: db.durability, warnings: warnings() });
  });
  return router;
}

/** POST (and GET) /graphql, with GraphQL-shaped errors for what fails before GraphQL runs. */
function graphqlRouter(deps: Pick<AppDeps, 'links' | 'config' | 'bulkStarted' | 'logger'> & { auth: RequestHandler; policy: AuthPolicy; metrics: Metrics }): express.Router {
  const { auth, policy, links, config, metrics, bulkStarted, logger } = deps;
  const router = express.Router();
  const fileUrls = (req: express.Request) => ({
    file: (key: string) => links.urlFor(key, baseUrlOf(req, config.files.publicUrl)),
    quotePdf: (pdf: GeneratedPdfRef) => links.quotePdfUrl(pdf, baseUrlOf(req, config.files.publicUrl)),
    invoicePdf: (pdf: InvoicePdfRef) => links.invoicePdfUrl(pdf, baseUrlOf(req, config.files.publicUrl)),
    phoneSignIn: (code: string) => technicianAppSignInLink(baseUrlOf(req, config.files.publicUrl), code),
  });
  router.all(
    '/graphql',
    declaredBodyWithin(config.bodyLimitBytes, sendGraphQLError),
    answerWithin(config.http.requestTimeoutMs, sendGraphQLError),
    auth,
    // Read the body as text, bounded; graphql-http parses and validates it per its spec.
    express.text({ type: () => true, limit: config.bodyLimitBytes }),
    graphqlHandler({
      schema: buildGraphQLSchema(),
      logger,
      fileUrls,
      limits: { maxDepth: config.http.graphqlMaxDepth, maxCost: config.http.graphqlMaxCost },
      auth: policy,
      onOperation: metrics.graphqlOperation,
      webhookPolicy: config.webhooks ?? STRICT_POLICY,
      ...(bulkStarted ? { bulkStarted } : {}),
    }),
  );
  router.use(graphqlErrors(logger));
  return router;
}

/** Runs `first`, then `second` unless `first` failed: authentication, then the token's budget. */
function inSequence(first: RequestHandler, second: RequestHandler): RequestHandler {
  return (req, res, next) => {
    void first(req, res, (error?: unknown) => (error ? next(error) : void second(req, res, next)));
  };
}

/**
 * The request deadline, except for the sync stream, which lasts as long as the device is online.
 * GraphQL has its own deadline, answered in GraphQL's shape.
 */
function exceptLongLived(deadline: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.path === '/sync/stream' || req.path === '/graphql') return next();
    void deadline(req, res, next);
  };
}
