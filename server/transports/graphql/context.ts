import type { OperationContext } from '../../operations/context.js';
import { createLoaders, type Loaders } from './loaders.js';

/** The GraphQL context: the operation context plus this request's batch loaders. */
export type GraphQLContext = OperationContext & {
  loaders: Loaders;
  /** A signed, expiring link to a stored file, pointing at the host the client called. */
  fileUrl: (key: string) => string;
  /** Tells the bulk worker a job was queued (so it need not wait for its next poll). */
  bulkStarted?: () => void;
};

export function graphqlContext(ctx: OperationContext, fileUrl: (key: string) => string, bulkStarted?: () => void): GraphQLContext {
  return { ...ctx, loaders: createLoaders(ctx), fileUrl, bulkStarted };
}

/** A resolver map for one module (typed loosely: graphql-js checks shapes at run time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Resolvers = Record<string, Record<string, any>>;
