import type { OperationContext } from '../../operations/context.js';

/** The GraphQL context is the operation context: resolvers pass it straight through. */
export type GraphQLContext = OperationContext;

/** A resolver map for one module (typed loosely: graphql-js checks shapes at run time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Resolvers = Record<string, Record<string, any>>;
