import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resources, sharedTypeDefs } from '../../../shared/index.js';
import * as bulk from './modules/bulk.js';
import * as catalog from './modules/catalog.js';
import * as chemistry from './modules/chemistry.js';
import * as customers from './modules/customers.js';
import * as events from './modules/events.js';
import * as inventory from './modules/inventory.js';
import * as invoiceDelivery from './modules/invoice-delivery.js';
import * as invoices from './modules/invoices.js';
import * as lists from './modules/lists.js';
import * as organization from './modules/organization.js';
import * as payments from './modules/payments.js';
import * as phones from './modules/phones.js';
import * as quotes from './modules/quotes.js';
import * as reports from './modules/reports.js';
import * as services from './modules/services.js';
import * as sync from './modules/sync.js';
import { atomicMutationFields } from './atomic-mutations.js';
import { DateScalar, DateTimeScalar, JSONScalar } from './scalars.js';

/**
 * The executable schema: the types derived from shared/ plus each module's operations.
 * Modules declare `type Query` / `type Mutation`; makeExecutableSchema merges them.
 */
const modules = [lists, organization, phones, catalog, customers, quotes, inventory, services, chemistry, sync, bulk, reports, events, invoices, payments, invoiceDelivery];

export function buildGraphQLSchema(): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: [sharedTypeDefs(resources), ...modules.map((m) => m.typeDefs)],
    resolvers: [{ DateTime: DateTimeScalar, Date: DateScalar, JSON: JSONScalar }, ...modules.map((m) => m.resolvers)],
  });
  return atomicMutationFields(schema);
}
