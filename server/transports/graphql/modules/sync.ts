import { listConflicts, listQuarantine } from '../../../operations/sync/log.js';
import type { GraphQLContext, Resolvers } from '../context.js';

/** What sync merged away (the conflict log) and what it could not accept (the quarantine). */
export const typeDefs = /* GraphQL */ `
  type Query {
    "Values overwritten by server-side merges, newest first (ADMIN, OFFICE, API)."
    syncConflicts(filter: SyncConflictFilter, first: Int, after: String): SyncConflictConnection!
    "Pushed documents that could not be accepted, with the reason, newest first (ADMIN, OFFICE, API)."
    syncQuarantine(collection: String, first: Int, after: String): SyncQuarantineConnection!
  }

  input SyncConflictFilter {
    collection: String
    documentId: ID
    field: String
    "Entries at or after this time."
    since: DateTime
  }

  type SyncConflict {
    id: ID!
    collection: String!
    documentId: ID!
    field: String!
    keptValue: JSON
    lostValue: JSON
    "Why the kept value won, e.g. 'technician-owned field, pushed by OFFICE'."
    rule: String!
    "The user whose push was merged."
    pushedBy: ID
    createdAt: DateTime!
  }

  type SyncConflictConnection {
    edges: [SyncConflictEdge!]!
    pageInfo: PageInfo!
  }

  type SyncConflictEdge {
    node: SyncConflict!
    cursor: String!
  }

  type SyncQuarantineEntry {
    id: ID!
    collection: String!
    documentId: ID!
    "The document as the device sent it."
    document: JSON!
    reason: String!
    pushedBy: ID
    createdAt: DateTime!
  }

  type SyncQuarantineConnection {
    edges: [SyncQuarantineEdge!]!
    pageInfo: PageInfo!
  }

  type SyncQuarantineEdge {
    node: SyncQuarantineEntry!
    cursor: String!
  }
`;

type Args = Record<string, any>;

export const resolvers: Resolvers = {
  Query: {
    syncConflicts: (_: unknown, args: Args, ctx: GraphQLContext) => listConflicts(ctx, args),
    syncQuarantine: (_: unknown, args: Args, ctx: GraphQLContext) => listQuarantine(ctx, args),
  },
};
