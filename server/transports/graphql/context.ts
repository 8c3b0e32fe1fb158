import type { OperationContext } from '../../operations/context.js';
import { createLoaders, type Loaders } from './loaders.js';

/** The GraphQL context: the operation context plus this request's batch loaders. */
export type GraphQLContext = OperationContext & { loaders: Loaders };

export function graphqlContext(ctx: OperationContext): GraphQLContext {
  return { ...ctx, loaders: createLoaders(ctx) };
}

/** A resolver map for one module (typed loosely: graphql-js checks shapes at run time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Resolvers = Record<string, Record<string, any>>;
