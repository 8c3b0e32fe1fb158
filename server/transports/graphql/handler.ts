import type { RequestHandler } from 'express';
import { getOperationAST, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Logger } from 'pino';
import type { AuthPolicy } from '../../operations/auth-policy.js';
import { doOnce } from '../../operations/idempotency.js';
import type { OperationContext } from '../../operations/context.js';
import { formatGraphQLError, kindOfStatus } from '../errors.js';
import { contextOf } from '../http/request-context.js';
import { graphqlContext, type GraphQLContext, type LinkMakers } from './context.js';
import { keepable, mutationRequestHash, withoutData, withValuesNulled, type StoredGraphQLAnswer } from './idempotent.js';
import type { WebhookPolicy } from '../../operations/events/endpoints.js';
import { limitRules, parseWithinNesting, type GraphQLLimits } from './limits.js';

export interface GraphQLHandlerOptions {
  schema: GraphQLSchema;
  logger: Logger;
  fileUrls: (req: import('express').Request) => LinkMakers;
  limits: GraphQLLimits;
  auth: AuthPolicy;
  /** Told of every executed operation (for /metrics). */
  onOperation?: (name: string | undefined, type: string, failed: boolean) => void;
  bulkStarted?: () => void;
  /** What webhook endpoint URLs may be. */
  webhookPolicy: WebhookPolicy;
}

/**
 * GraphQL over HTTP (graphql-http) on Express. The core takes a plain request and returns
 * [body, init]; this is the thin adapter. Express has already read the body as text, within the
 * size limit, so graphql-http parses JSON and negotiates media types exactly as its spec says.
 */
export function graphqlHandler({ schema, logger, fileUrls, limits, auth, onOperation, bulkStarted, webhookPolicy }: GraphQLHandlerOptions): RequestHandler {
  const handle = createHandler<import('express').Request, InTransaction | undefined, GraphQLContext>({
    schema,
    parse: parseWithinNesting,
    context: (req) =>
      req.context
        ? graphqlContext(req.context.ctx, fileUrls(req.raw), { auth, bulkStarted: req.context.bulkStarted, inRequestTransaction: true, webhookPolicy, concealInReplays: req.context.conceal })
        : graphqlContext(contextOf(req.raw), fileUrls(req.raw), { auth, bulkStarted, webhookPolicy }),
    validationRules: (_req, args, specifiedRules) => [...specifiedRules, ...limitRules(limits, args.variableValues ?? undefined)],
    onOperation: (_req, args, result) => {
      const operation = getOperationAST(args.document, args.operationName);
      const failed = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
      onOperation?.(operation?.name?.value, operation?.operation ?? 'unknown', failed);
    },
    formatError: (error) => formatGraphQLError(error, logger),
  });

  const answer = async (req: import('express').Request, context?: InTransaction): Promise<StoredGraphQLAnswer> => {
    const [body, init] = await handle({
      url: req.originalUrl,
      method: req.method,
      headers: req.headers,
      body: () => (typeof req.body === 'string' ? req.body : ''),
      raw: req,
      context,
    });
    const headers = { ...((init.headers as Record<string, string> | undefined) ?? {}) };
    return { status: init.status, headers, body: init.status >= 400 ? withErrorCodes(body, init.status) : body };
  };

  return async (req, res, next) => {
    try {
      const key = req.get('idempotency-key');
      const hash = key === undefined ? null : mutationRequestHash(req.body);
      const { answer: sent, replayed } =
        key !== undefined && hash !== null ? await answerOnce(req, key, hash, answer, bulkStarted) : { answer: await answer(req), replayed: false };
      res
        .writeHead(sent.status, { ...sent.headers, ...(replayed ? { 'idempotent-replayed': 'true' } : {}) })
        .end(sent.body);
    } catch (error) {
      next(error);
    }
  };
}

/** The operation context of a request run in one transaction, who to tell of queued bulk work, and what its stored answer must not show. */
interface InTransaction {
  ctx: OperationContext;
  bulkStarted?: () => void;
  conceal: (value: string) => void;
}

/**
 * A mutation sent with an Idempotency-Key: run in one transaction that also stores its answer
 * (doOnce). The bulk worker is told of queued work only after the commit, when it can see it.
 */
async function answerOnce(
  req: import('express').Request,
  key: string,
  hash: string,
  answer: (req: import('express').Request, context: InTransaction) => Promise<StoredGraphQLAnswer>,
  bulkStarted: (() => void) | undefined,
) {
  let queued = false;
  const concealed: string[] = [];
  const result = await doOnce(contextOf(req), key, hash, async (ctx) => {
    const sent = await answer(req, { ctx, bulkStarted: () => void (queued = true), conceal: (value) => void concealed.push(value) });
    const keep = keepable(sent.status, sent.body);
    if (!keep) return { answer: { ...sent, body: withoutData(sent.body) }, keep };
    return { answer: sent, keep, stored: { ...sent, body: withValuesNulled(sent.body, concealed) } };
  });
  if (queued && !result.replayed) bulkStarted?.();
  return result;
}

/**
 * graphql-http answers protocol errors (unparsable JSON, wrong method or media type) itself,
 * without extensions.code; add the code of their status so every error carries one.
 */
function withErrorCodes(body: string | null, status: number): string | null {
  if (!body) return body;
  try {
    const parsed = JSON.parse(body) as { errors?: { extensions?: Record<string, unknown> }[] };
    if (!Array.isArray(parsed.errors)) return body;
    for (const error of parsed.errors) {
      error.extensions = { code: kindOfStatus(status), ...error.extensions };
    }
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}
