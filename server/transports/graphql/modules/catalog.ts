import { resourceInputSDL, serviceTypeResource } from '../../../../shared/index.js';
import { createServiceType, createTax, serviceTypesOf, taxesOf, updateServiceType } from '../../../operations/catalog.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationcreateServiceTypeArgs, MutationcreateTaxArgs, MutationupdateServiceTypeArgs } from '../generated/schema-types.js';

/** Service types and taxes: what quoted prices and quotes refer to. */
export const typeDefs = /* GraphQL */ `
  type Query {
    serviceTypes: [TypeEntity!]!
    taxes: [Tax!]!
  }

  type Mutation {
    createServiceType(input: CreateServiceTypeInput!): TypeEntity!
    updateServiceType(id: ID!, input: UpdateServiceTypeInput!): TypeEntity!
    "rate is a percentage, e.g. 8.25."
    createTax(input: CreateTaxInput!): Tax!
  }

  ${resourceInputSDL('CreateServiceTypeInput', serviceTypeResource, { required: ['display'] })}

  ${resourceInputSDL('UpdateServiceTypeInput', serviceTypeResource)}

  input CreateTaxInput {
    name: String!
    rate: Float!
    isActive: Boolean
  }
`;


export const resolvers: Resolvers = {
  Query: {
    serviceTypes: (_: unknown, __: unknown, ctx: GraphQLContext) => serviceTypesOf(ctx),
    taxes: (_: unknown, __: unknown, ctx: GraphQLContext) => taxesOf(ctx),
  },
  Mutation: {
    createServiceType: (_: unknown, { input }: MutationcreateServiceTypeArgs, ctx: GraphQLContext) => createServiceType(ctx, input),
    updateServiceType: (_: unknown, { id, input }: MutationupdateServiceTypeArgs, ctx: GraphQLContext) => updateServiceType(ctx, id, input),
    createTax: (_: unknown, { input }: MutationcreateTaxArgs, ctx: GraphQLContext) => createTax(ctx, input),
  },
};
