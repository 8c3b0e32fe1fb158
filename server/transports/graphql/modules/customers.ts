import { customerResource, resourceInputSDL, type Customer } from '../../../../shared/index.js';
import {
  createCustomer,
  deleteCustomer,
  listCustomers,
  lookupCustomers,
  replaceQuotedPrices,
  updateCustomer,
} from '../../../operations/customers.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { MutationcreateCustomerArgs, MutationdeleteCustomerArgs, MutationupdateCustomerArgs, MutationupdateCustomerQuotedPricesArgs, QueryinfiniteCustomerLookupArgs, QueryinfiniteCustomersArgs } from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

/** The spec's customer operations. */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Customers matching the selector. first/last at most 100; deleted customers only with filters.deleted.eq = true."
    infiniteCustomers(
      selector: CustomersSelector
      sort: [CustomersSort]
      first: Int
      after: String
      last: Int
      before: String
    ): CustomerConnection!
    "Search-as-you-type over the same fields as infiniteCustomers' search, by name."
    infiniteCustomerLookup(query: String!, first: Int, after: String): CustomerLookupConnection!
  }

  type Mutation {
    createCustomer(input: CreateCustomerInput!): Customer!
    "Fields not submitted stay as they were; null clears a field."
    updateCustomer(id: ID!, input: UpdateCustomerInput!): Customer!
    "Deletes softly: the customer is then listed only with filters.deleted.eq = true, and devices receive the delete."
    deleteCustomer(id: ID!): Customer!
    "Replaces every quoted price of the customer; entries priced 0 or less are ignored."
    updateCustomerQuotedPrices(customerId: ID!, input: UpdateCustomerQuotedPricesInput!): [CustomerQuotedPriceEntity!]!
  }

  ${connectionSDL('Customer', { totalCount: true })}
  ${connectionSDL('Customer', { name: 'CustomerLookupConnection', edge: false })}

  input CustomersSelector {
    "Every word must occur in a name, address, postal code or phone (at most 600 characters)."
    search: String
    filters: CustomerFilter
  }

  input CustomerFilter {
    id: IdFilter
    status: EnumFilter
    isCommercial: BooleanFilter
    readyForInvoice: BooleanFilter
    zone: StringFilter
    city: StringFilter
    state: StringFilter
    zipCode: StringFilter
    "The customer's id in the linked accounting system: a connector finds the record it linked (eq), so a retried run updates it instead of making another."
    accountingId: StringFilter
    "The customer's id at the payment processor."
    paymentProcessorId: StringFilter
    tags: ScalarListFilter
    customerSinceDate: DateTimeFilter
    "Defaults to false: deleted customers are listed only when asked for."
    deleted: BooleanFilter
  }

  enum CustomerSortField {
    "Last name, then first name"
    NAME
    CITY
    CREATED_AT
    UPDATED_AT
    CUSTOMER_SINCE_DATE
  }

  "Sorts apply in order; ties are broken by id, so the order is stable across pages."
  input CustomersSort {
    field: CustomerSortField!
    direction: SortDirection = ASC
  }

  input UpdateCustomerQuotedPricesInput {
    quotedPrices: [CustomerQuotedPriceInput!]!
  }

  input CustomerQuotedPriceInput {
    typeId: ID
    price: Float!
  }

  ${resourceInputSDL('CreateCustomerInput', customerResource, { required: ['lastName'] })}

  ${resourceInputSDL('UpdateCustomerInput', customerResource)}
`;


export const resolvers: Resolvers = {
  Query: {
    infiniteCustomers: (_: unknown, args: QueryinfiniteCustomersArgs, ctx: GraphQLContext) => listCustomers(ctx, args),
    infiniteCustomerLookup: (_: unknown, args: QueryinfiniteCustomerLookupArgs, ctx: GraphQLContext) => lookupCustomers(ctx, args),
  },
  Mutation: {
    createCustomer: (_: unknown, { input }: MutationcreateCustomerArgs, ctx: GraphQLContext) => createCustomer(ctx, input),
    updateCustomer: (_: unknown, { id, input }: MutationupdateCustomerArgs, ctx: GraphQLContext) => updateCustomer(ctx, id, input),
    deleteCustomer: (_: unknown, { id }: MutationdeleteCustomerArgs, ctx: GraphQLContext) => deleteCustomer(ctx, id),
    updateCustomerQuotedPrices: (_: unknown, { customerId, input }: MutationupdateCustomerQuotedPricesArgs, ctx: GraphQLContext) =>
      replaceQuotedPrices(ctx, customerId, input),
  },
  Customer: {
    quotedPrices: (c: Customer, _: unknown, ctx: GraphQLContext) => ctx.loaders.quotedPrices.load(c.id),
    nextScheduledApt: async (c: Customer, _: unknown, ctx: GraphQLContext) =>
      (await ctx.loaders.nextAppointment.load(c.id))[0] ?? null,
  },
};
