import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resources, sharedTypeDefs } from '../../../shared/index.js';
import * as organization from './modules/organization.js';
import { DateScalar, DateTimeScalar, JSONScalar } from './scalars.js';

/**
 * The executable schema: the types derived from shared/ plus each module's operations.
 * Modules declare `type Query` / `type Mutation`; makeExecutableSchema merges them.
 */
const modules = [organization];

export function buildGraphQLSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: [sharedTypeDefs(resources), ...modules.map((m) => m.typeDefs)],
    resolvers: [{ DateTime: DateTimeScalar, Date: DateScalar, JSON: JSONScalar }, ...modules.map((m) => m.resolvers)],
  });
}
