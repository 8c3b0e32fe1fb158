import { listConflicts, listQuarantine } from '../../../operations/sync/log.js';
import type { GraphQLContext, Resolvers } from '../context.js';
import type { QuerysyncConflictsArgs, QuerysyncQuarantineArgs } from '../generated/schema-types.js';
import { connectionSDL } from './lists.js';

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

  ${connectionSDL('SyncConflict')}

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


export const resolvers: Resolvers = {
  Query: {
    syncConflicts: (_: unknown, args: QuerysyncConflictsArgs, ctx: GraphQLContext) => listConflicts(ctx, args),
    syncQuarantine: (_: unknown, args: QuerysyncQuarantineArgs, ctx: GraphQLContext) => listQuarantine(ctx, args),
  },
};
