import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './storage/db.js';
import { graphqlHandler } from './transports/graphql/handler.js';
import { buildGraphQLSchema } from './transports/graphql/schema.js';
import { graphqlErrors, notFoundRoute, restErrors } from './transports/http/errors.js';
import { authenticateRequests } from './transports/http/request-context.js';
import { adminRouter } from './transports/rest/admin.js';

export interface AppDeps {
  db: Database;
  config: Pick<Config, 'platformAdminToken' | 'bodyLimitBytes'>;
  logger: Logger;
}

/** Readiness is flipped off at shutdown so a load balancer stops sending new requests. */
export interface Lifecycle {
  ready: boolean;
}

/**
 * Builds the Express app without listening (tests call it in-process; main.ts listens).
 *
 * @example
 *   const { app } = createApp({ db, config, logger })
 *   app.listen(0, '127.0.0.1')
 */
export function createApp({ db, config, logger }: AppDeps): { app: Express; lifecycle: Lifecycle } {
  const app = express();
  const lifecycle: Lifecycle = { ready: true };
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(pinoHttp({ logger, autoLogging: { ignore: (req) => req.url === '/healthz' } }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const dbOk = await db.query('select 1').then(
      () => true,
      () => false,
    );
    const ready = lifecycle.ready && dbOk;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', database: dbOk });
  });

  const graphql = express.Router();
  graphql.use(authenticateRequests(db));
  // Read the body as text, bounded; graphql-http parses and validates it per its spec.
  graphql.use(express.text({ type: () => true, limit: config.bodyLimitBytes }));
  graphql.all('/', graphqlHandler(buildGraphQLSchema(), logger));
  graphql.use(graphqlErrors(logger));
  app.use('/graphql', graphql);

  app.use(adminRouter(db, config.platformAdminToken, config.bodyLimitBytes));
  app.use(notFoundRoute);
  app.use(restErrors(logger));
  return { app, lifecycle };
}
