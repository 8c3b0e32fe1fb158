import { timingSafeEqual } from 'node:crypto';
import { Router, type Request, type RequestHandler } from 'express';
import { errors } from '../../../shared/index.js';
import client from 'prom-client';
import type { LiveFanout } from '../../operations/sync/live-fanout.js';
import { bulkQueueStats, type BulkQueueStats } from '../../storage/bulk-operations.js';
import type { Database } from '../../storage/db.js';
import type { AuthGate } from './auth-throttle.js';

/**
 * Prometheus metrics (prom-client) for GET /metrics. One registry per app, so tests that build
 * several apps in one process count separately. Labels are bounded sets: route templates (never a
 * raw path with ids in it), collection names the router has already checked, GraphQL operation
 * names up to a fixed number of distinct ones.
 */
export interface Metrics {
  registry: client.Registry;
  /** Times and counts every HTTP request by route template, method and status. */
  http: RequestHandler;
  graphqlOperation(name: string | undefined, type: string, failed: boolean): void;
  syncPull(collection: string, rows: number): void;
  syncPush(collection: string, rows: number, conflicts: number): void;
}

export interface MetricSources {
  db: Database;
  feed: LiveFanout;
}

/** Distinct GraphQL operation names kept as labels; later new names count as "other". */
const MAX_OPERATION_NAMES = 200;

export function createMetrics({ db, feed }: MetricSources): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'pool_' });
  const http = httpMetrics(registry);
  const graphql = new client.Counter({
    name: 'pool_graphql_operations_total',
    help: 'GraphQL operations by operation name, type and outcome',
    labelNames: ['operation', 'type', 'outcome'],
    registers: [registry],
  });
  const pulls = new client.Counter({ name: 'pool_sync_pulls_total', help: 'Sync pull requests by collection', labelNames: ['collection'], registers: [registry] });
  const pulledRows = new client.Counter({ name: 'pool_sync_pulled_rows_total', help: 'Documents sent by sync pulls', labelNames: ['collection'], registers: [registry] });
  const pushes = new client.Counter({ name: 'pool_sync_pushes_total', help: 'Sync push requests by collection', labelNames: ['collection'], registers: [registry] });
  const pushedRows = new client.Counter({ name: 'pool_sync_pushed_rows_total', help: 'Rows received by sync pushes', labelNames: ['collection'], registers: [registry] });
  const conflicts = new client.Counter({
    name: 'pool_sync_conflicts_total',
    help: 'Pushed rows answered with the server state (conflict, refusal or quarantine)',
    labelNames: ['collection'],
    registers: [registry],
  });
  registerGauges(registry, { db, feed });
  const names = new Set<string>();
  return {
    registry,
    http,
    graphqlOperation(name, type, failed) {
      let label = name && /^\w{1,64}$/.test(name) ? name : 'anonymous';
      if (!names.has(label) && names.size >= MAX_OPERATION_NAMES) label = 'other';
      else names.add(label);
      graphql.inc({ operation: label, type, outcome: failed ? 'error' : 'ok' });
    },
    syncPull(collection, rows) {
      pulls.inc({ collection });
      pulledRows.inc({ collection }, rows);
    },
    syncPush(collection, rows, conflicted) {
      pushes.inc({ collection });
      pushedRows.inc({ collection }, rows);
      conflicts.inc({ collection }, conflicted);
    },
  };
}

/** GET /metrics in Prometheus' text format; with METRICS_TOKEN set, only for `Bearer <token>`. */
export function metricsRoute(metrics: Metrics, token: string | undefined, gate: AuthGate): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    await gate.pass(req, res, () => {
      if (token && !sameSecret(req.get('authorization') ?? '', `Bearer ${token}`)) throw errors.unauthenticated('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    });
    res.setHeader('content-type', metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
  return router;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function httpMetrics(registry: client.Registry): RequestHandler {
  const requests = new client.Counter({
    name: 'pool_http_requests_total',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'pool_http_request_duration_seconds',
    help: 'Time to answer HTTP requests (sync streams excluded: they last until the device goes)',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return (req, res, next) => {
    const stop = duration.startTimer();
    res.once('finish', () => {
      const labels = { route: routeTemplate(req), method: req.method };
      requests.inc({ ...labels, status: String(res.statusCode) });
      if (!String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) stop(labels);
    });
    next();
  };
}

/**
 * The matched route's pattern (`/sync/:collection/pull`), never the raw path: ids in labels would
 * make one time series per document. Every router is mounted at the root, so the route's own
 * path is the whole template.
 */
function routeTemplate(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  return req.method === 'OPTIONS' ? 'preflight' : 'unmatched';
}

/** Values read when Prometheus scrapes: live subscribers, LISTEN reconnects, bulk queue, pool, memory. */
function registerGauges(registry: client.Registry, { db, feed }: MetricSources): void {
  // Both bulk gauges are collected in one scrape: they share one query.
  let bulk: Promise<BulkQueueStats> | null = null;
  const bulkStats = () => (bulk ??= bulkQueueStats(db).finally(() => setImmediate(() => (bulk = null))));
  new client.Gauge({
    name: 'pool_live_subscribers',
    help: 'Open live sync subscriptions in this process',
    registers: [registry],
    collect() {
      this.set(feed.stats().subscribers);
    },
  });
  new client.Counter({
    name: 'pool_listen_reconnects_total',
    help: 'Times this process re-established its change LISTEN connection since it started',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(feed.stats().reconnects);
    },
  });
  new client.Gauge({
    name: 'pool_bulk_operations',
    help: 'Bulk operations by status (all organizations)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const stats = await bulkStats();
      for (const [status, count] of Object.entries(stats.byStatus)) this.set({ status }, count);
    },
  });
  new client.Gauge({
    name: 'pool_bulk_queue_age_seconds',
    help: 'How long the oldest queued bulk operation has waited',
    registers: [registry],
    async collect() {
      this.set((await bulkStats()).oldestQueuedSeconds);
    },
  });
  new client.Gauge({
    name: 'pool_db_pool_connections',
    help: 'PostgreSQL pool connections by state (absent on the embedded store)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = db.poolStats();
      if (!stats) return;
      this.set({ state: 'open' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
}
