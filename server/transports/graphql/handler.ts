import type { RequestHandler } from 'express';
import { getOperationAST, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Logger } from 'pino';
import { formatGraphQLError, kindOfStatus } from '../errors.js';
import { contextOf } from '../http/request-context.js';
import { graphqlContext, type GraphQLContext } from './context.js';
import { limitRules, type GraphQLLimits } from './limits.js';

export interface GraphQLHandlerOptions {
  schema: GraphQLSchema;
  logger: Logger;
  fileUrls: (req: import('express').Request) => (key: string) => string;
  limits: GraphQLLimits;
  /** Told of every executed operation (for /metrics). */
  onOperation?: (name: string | undefined, type: string, failed: boolean) => void;
  bulkStarted?: () => void;
}

/**
 * GraphQL over HTTP (graphql-http) on Express. The core takes a plain request and returns
 * [body, init]; this is the thin adapter. Express has already read the body as text, within the
 * size limit, so graphql-http parses JSON and negotiates media types exactly as its spec says.
 */
export function graphqlHandler({ schema, logger, fileUrls, limits, onOperation, bulkStarted }: GraphQLHandlerOptions): RequestHandler {
  const handle = createHandler<import('express').Request, undefined, GraphQLContext>({
    schema,
    context: (req) => graphqlContext(contextOf(req.raw), fileUrls(req.raw), bulkStarted),
    validationRules: (_req, args, specifiedRules) => [...specifiedRules, ...limitRules(limits, args.variableValues ?? undefined)],
    onOperation: (_req, args, result) => {
      const operation = getOperationAST(args.document, args.operationName);
      const failed = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
      onOperation?.(operation?.name?.value, operation?.operation ?? 'unknown', failed);
    },
    formatError: (error) => formatGraphQLError(error, logger),
  });

  return async (req, res, next) => {
    try {
      const [body, init] = await handle({
        url: req.originalUrl,
        method: req.method,
        headers: req.headers,
        body: () => (typeof req.body === 'string' ? req.body : ''),
        raw: req,
        context: undefined,
      });
      const coded = init.status >= 400 ? withErrorCodes(body, init.status) : body;
      res.writeHead(init.status, init.statusText, init.headers).end(coded);
    } catch (error) {
      next(error);
    }
  };
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
